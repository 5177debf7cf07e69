/**
 * `npm run conformance` on the repository's own fixture folders: each finds its checker by
 * provider name, checks every stream file it holds, and every check agrees with its recording.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { checkFolder } from '../scripts/conformance.ts'

const FOLDERS = {
  anthropic: 'anthropic',
  gemini: 'google',
  'gemini-interactions': 'gemini-interactions',
  openai: 'openai-responses',
  'openai-compatible': 'openai-chat',
} as const

describe('conformance on the repository fixtures', () => {
  it.each(Object.entries(FOLDERS))(
    'checks test/fixtures/%s with the %s checker',
    async (folder, checker) => {
      const result = await checkFolder(join(import.meta.dirname, 'fixtures', folder))
      if (!result.ok) throw new Error(result.message)
      expect(result.checker).toBe(checker)
      const failed = result.rows.filter((row) => !row.ok)
      expect(failed).toEqual([])
      // Every SSE fixture was replayed, none skipped.
      const streams = result.files.filter((name) => name.endsWith('.sse'))
      expect(streams.length).toBeGreaterThan(5)
      for (const name of streams) {
        const rows = result.rows.filter(
          (row) => row.name === name || row.name.startsWith(`${name}#`),
        )
        expect(rows.length, name).toBeGreaterThan(0)
        expect(
          rows.every((row) => row.actual !== 'skipped'),
          name,
        ).toBe(true)
      }
    },
  )

  it('says so when a folder has no checker', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'thinkwire-conformance-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    await writeFile(join(dir, 'a.sse'), 'data: {}\n\n')
    const result = await checkFolder(dir)
    expect(result.ok).toBe(false)
    expect(!result.ok && result.message).toMatch(/^no checker for 'thinkwire-conformance-/)
  })
})
