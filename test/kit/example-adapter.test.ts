import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { acme } from '../../examples/acme-adapter.ts'
import type { Conversation } from '../../src/core/conversation.ts'
import { replayFetch, sse } from '../helpers/replay-fetch.ts'
import { collect, doneTurn, failure } from '../helpers/stream.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Weather in Oslo?' }] }
const answer = sse([
  ['reason', { delta: 'They want ' }],
  ['reason', { delta: 'the weather.' }],
  ['say', { delta: 'Let me look.' }],
  ['call', { id: 'c1', tool: 'weather', args: { city: 'Oslo' } }],
  ['progress', { percent: 50 }],
  ['end', { reason: 'tool', usage: { in: 12, out: 30 }, record: { acme: 'turn-1' } }],
])

describe('the kit example adapter for a made-up API (examples/acme-adapter.ts)', () => {
  it('streams thinking, text and a tool call, and ends with a done turn the kit built', async () => {
    const replay = replayFetch([{ body: answer, splitAt: 'bytes' }])
    const events = await collect(
      acme({ apiKey: 'k', model: 'a1', fetch: replay.fetch }).stream(ask),
    )
    expect(events.map((e) => e.type)).toEqual(['thinking', 'thinking', 'text', 'tool-call', 'done'])
    expect(doneTurn(events)).toEqual({
      role: 'assistant',
      text: 'Let me look.',
      thinking: 'They want the weather.',
      toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'Oslo' } }],
      usage: { inputTokens: 12, outputTokens: 30 },
      stopReason: 'tool-calls',
      items: { provider: 'acme', model: 'a1', thinkingMode: 'default', data: [{ acme: 'turn-1' }] },
    })
  })

  it('replays its own record verbatim and re-encodes a turn of another model', async () => {
    const replay = replayFetch([{ body: answer }, { body: answer }, { body: answer }])
    const first = doneTurn(
      await collect(acme({ apiKey: 'k', model: 'a1', fetch: replay.fetch }).stream(ask)),
    )
    const next: Conversation = {
      turns: [
        ...ask.turns,
        first,
        { role: 'tool', results: [{ callId: 'c1', name: 'weather', output: 'sunny' }] },
      ],
    }
    await collect(acme({ apiKey: 'k', model: 'a1', fetch: replay.fetch }).stream(next))
    expect(JSON.stringify(replay.requests[1]!.body)).toContain('"acme":"turn-1"')
    await collect(acme({ apiKey: 'k', model: 'a2', fetch: replay.fetch }).stream(next))
    expect(JSON.stringify(replay.requests[2]!.body)).not.toContain('turn-1')
  })

  it('fails with no done when the stream is cut before its end, and maps HTTP errors', async () => {
    const cut = replayFetch([{ body: answer, cutAfterBytes: answer.indexOf('event: end') }])
    const { events, error } = await failure(
      acme({ apiKey: 'k', model: 'a1', fetch: cut.fetch }).stream(ask),
    )
    expect(events.some((e) => e.type === 'done')).toBe(false)
    expect(error).toMatchObject({ kind: 'network' })

    const limited = replayFetch([
      { status: 429, headers: { 'retry-after': '2' }, body: '{"error":"slow down"}' },
    ])
    const refused = await failure(
      acme({ apiKey: 'k', model: 'a1', fetch: limited.fetch }).stream(ask),
    )
    expect(refused.error).toMatchObject({ kind: 'rate-limit', retryAfterMs: 2000, retryable: true })
  })
})

describe('the layout in docs/development.md', () => {
  it('lists only folders that exist, and every folder of src/', () => {
    const root = new URL('../../', import.meta.url)
    const page = readFileSync(new URL('docs/development.md', root), 'utf8')
    const layout = page.slice(page.indexOf('## Layout'))
    const listed = [...layout.matchAll(/^([a-z./<>-]+\/) /gm)].map((m) => m[1]!)
    expect(listed.length).toBeGreaterThan(10)
    for (const folder of listed.filter((f) => !f.includes('<') && !f.includes(','))) {
      expect(existsSync(new URL(folder, root)), folder).toBe(true)
    }
    for (const entry of readdirSync(new URL('src/', root), { withFileTypes: true })) {
      if (entry.isDirectory()) expect(layout).toContain(`src/${entry.name}/`)
    }
  })
})
