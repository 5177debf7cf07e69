// @vitest-environment happy-dom
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Metafile } from 'esbuild'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { presets } from '../../../src/providers/openai-compatible/index.ts'
import { importBrowserBundle } from '../../helpers/browser.ts'
import { replayFetch } from '../../helpers/replay-fetch.ts'
import { collect } from '../../helpers/stream.ts'
import { compatibleWith, offPeakClock } from './harness.ts'

type CompatibleModule = typeof import('../../../src/providers/openai-compatible/index.ts')

const ask: Conversation = { turns: [{ role: 'user', content: 'Wetter in Zürich?' }] }
let bundled: CompatibleModule
let metafile: Metafile

beforeAll(async () => {
  ;({ module: bundled, metafile } = await importBrowserBundle<CompatibleModule>(
    join(import.meta.dirname, '../../../src/providers/openai-compatible/index.ts'),
  ))
})

// Read by path: happy-dom replaces the global URL that the folder's `fixture()` builds on.
const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, '../../fixtures/openai-compatible', name), 'utf8')

describe('openai-compatible in a browser page', () => {
  it('bundles for the browser with no Node module', () => {
    expect(Object.keys(metafile.inputs).some((path) => path.includes('node_modules/openai/'))).toBe(
      true,
    )
    const imports = Object.values(metafile.inputs).flatMap((input) => input.imports)
    expect(imports.filter((entry) => entry.external || entry.path.startsWith('node:'))).toEqual([])
  })

  it.each([
    ['deepseek', 'deepseek-reasoner', 'deepseek-answer.sse', 'text'],
    ['deepseek', 'deepseek-reasoner', 'deepseek-tool-call.sse', 'tool-call'],
    ['groq', 'qwen/qwen3-32b', 'think-tags.sse', 'text'],
  ] as const)(
    'streams %s %s %s from the bundle as Node does, thinking then %s',
    async (preset, model, name, kind) => {
      expect(typeof window.document).toBe('object')
      const options = {
        ...presets[preset],
        model,
        apiKey: 'sk-user-key-0123456789',
        now: offPeakClock,
      }
      const replay = replayFetch([{ body: fixture(name) }])
      const adapter = bundled.openaiCompatible({ ...options, fetch: replay.fetch })
      const inBrowser = await collect(adapter.stream(ask))
      const inNode = await collect(
        compatibleWith([{ body: fixture(name) }], options).adapter.stream(ask),
      )
      expect(inNode.map((event) => event.type)).toEqual(expect.arrayContaining(['thinking', kind]))
      expect(inBrowser).toEqual(inNode)
      expect(replay.requests[0]!.headers['authorization']).toBe('Bearer sk-user-key-0123456789')
    },
  )
})
