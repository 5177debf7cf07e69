// @vitest-environment happy-dom
import { join } from 'node:path'
import type { Metafile } from 'esbuild'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { importBrowserBundle } from '../../helpers/browser.ts'
import { replayFetch } from '../../helpers/replay-fetch.ts'
import { collect, fixture, geminiWith } from './harness.ts'

type GeminiModule = typeof import('../../../src/providers/gemini/index.ts')

const ask: Conversation = { turns: [{ role: 'user', content: 'Wetter in München?' }] }
let bundled: GeminiModule
let metafile: Metafile

beforeAll(async () => {
  ;({ module: bundled, metafile } = await importBrowserBundle<GeminiModule>(
    join(import.meta.dirname, '../../../src/providers/gemini/index.ts'),
  ))
})

describe('gemini in a browser page', () => {
  it('bundles for the browser with the web build of the SDK and no Node module', () => {
    const inputs = Object.keys(metafile.inputs)
    // Matched by suffix: esbuild names inputs relative to the working folder, and node_modules
    // may be a link to another folder.
    expect(
      inputs.filter((path) => path.endsWith('node_modules/@google/genai/dist/web/index.mjs')),
    ).toHaveLength(1)
    const imports = Object.values(metafile.inputs).flatMap((input) => input.imports)
    expect(imports.filter((entry) => entry.external || entry.path.startsWith('node:'))).toEqual([])
  })

  it.each([
    ['thinking-then-text.sse', 'text'],
    ['function-call-signed.sse', 'tool-call'],
  ])('streams %s from the bundle as Node does, thinking then %s', async (name, kind) => {
    expect(typeof window.document).toBe('object')
    const replay = replayFetch([{ body: fixture(name) }])
    const adapter = bundled.gemini({
      apiKey: 'AIzaUserKeyThatIsNotReal000000000',
      model: 'gemini-3-flash-preview',
      fetch: replay.fetch,
    })
    const inBrowser = await collect(adapter.stream(ask))
    const inNode = await collect(geminiWith([{ body: fixture(name) }]).adapter.stream(ask))
    expect(inNode.map((event) => event.type)).toEqual(expect.arrayContaining(['thinking', kind]))
    expect(inBrowser).toEqual(inNode)
    const sent = replay.requests[0]!
    expect(sent.headers['x-goog-api-key']).toBe('AIzaUserKeyThatIsNotReal000000000')
    expect(sent.url).not.toContain('AIza')
  })
})
