import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// `npm test` builds before it runs the tests; this checks the built package as users import it.
describe('the built package', () => {
  it('exists (npm test builds it first; run `npm run build` before this file alone)', () => {
    expect(existsSync('dist/index.js')).toBe(true)
    expect(existsSync('dist/providers/mock/index.js')).toBe(true)
  })

  it('imports by package name from the project folder and completes on the mock', () => {
    const script = `
      import { complete, Chat, isThinkwireError } from 'thinkwire'
      import { mock } from 'thinkwire/mock'
      const turn = await complete(mock(), { turns: [{ role: 'user', content: 'hi' }] })
      if (typeof turn.text !== 'string' || turn.text.length === 0) throw new Error('empty text')
      console.log(JSON.stringify({ text: turn.text, chat: typeof Chat, guard: typeof isThinkwireError }))
    `
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
    })
    const result = JSON.parse(out) as { text: string; chat: string; guard: string }
    expect(result.text).toContain('"hi"')
    expect(result).toMatchObject({ chat: 'function', guard: 'function' })
  })
})
