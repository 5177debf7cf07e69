import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { presets } from '../../../src/providers/openai-compatible/index.ts'
import { collect, doneTurn, failure } from '../../helpers/stream.ts'
import { compatibleWith, fixture } from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Grüß dich?' }] }
const vllm = { ...presets.vllm, model: 'llama-3.3-70b' }

// text-usage.sse: role, two text chunks, the finish reason, the usage chunk, [DONE].
const [start, hello, vienna, finish, usage, done] = fixture('text-usage.sse')
  .split('\n\n')
  .filter((event) => event !== '') as [string, string, string, string, string, string]
const sse = (...events: string[]) => events.map((event) => `${event}\n\n`).join('')
/** The finish chunk carrying the usage too, as DeepSeek, Groq and Mistral send it. */
const finishWithUsage = `data: ${JSON.stringify({
  ...(JSON.parse(finish.slice('data: '.length)) as object),
  usage: (JSON.parse(usage.slice('data: '.length)) as { usage: unknown }).usage,
})}`

describe('openai-compatible: where the stream ends', () => {
  it.each([
    ['at [DONE]', sse(start, hello, vienna, finish, usage, done)],
    [
      'after the usage chunk that follows the finish reason',
      sse(start, hello, vienna, finish, usage),
    ],
    [
      'after the finish reason that follows a usage chunk',
      sse(start, hello, vienna, usage, finish),
    ],
    ['after a finish reason that carries the usage', sse(start, hello, vienna, finishWithUsage)],
  ])('yields done and releases the body when it stays open %s', async (_, body) => {
    const { adapter, replay } = compatibleWith(
      [{ body, stallAfterBytes: Buffer.byteLength(body) }],
      vllm,
    )
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn).toMatchObject({
      text: 'Grüß Gott aus Wien 🇦🇹',
      stopReason: 'stop',
      usage: { inputTokens: 9, outputTokens: 6 },
    })
    await expect.poll(() => replay.aborted()).toBe(true)
  })

  it('keeps reading past a finish reason until the usage asked for arrives', async () => {
    // Usage on a chunk before the finish reason that still has choices is not the turn's.
    const early = `data: ${JSON.stringify({
      ...(JSON.parse(hello.slice('data: '.length)) as object),
      usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
    })}`
    const { adapter } = compatibleWith(
      [{ body: sse(start, early, vienna, finish, usage, done) }],
      vllm,
    )
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn.usage).toEqual({ inputTokens: 9, outputTokens: 6 })
  })

  it('takes a last [DONE] that the body ends without its blank line', async () => {
    const body = `${sse(start, hello, vienna, finish, usage)}data: [DONE]\n`
    const turn = doneTurn(await collect(compatibleWith([{ body }], vllm).adapter.stream(ask)))
    expect(turn.usage).toEqual({ inputTokens: 9, outputTokens: 6 })
  })

  it('ends with a finish reason and no usage when the body ends there', async () => {
    const body = sse(start, hello, vienna, finish)
    const turn = doneTurn(await collect(compatibleWith([{ body }], vllm).adapter.stream(ask)))
    expect(turn).toMatchObject({ stopReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } })
  })

  it('fails with a network error and no done when the body ends inside the usage chunk', async () => {
    const body = sse(start, hello, vienna, finish) + usage
    const { events, error } = await failure(compatibleWith([{ body }], vllm).adapter.stream(ask))
    expect(events.some((event) => event.type === 'done')).toBe(false)
    expect(error).toMatchObject({ kind: 'network', provider: 'vllm' })
    expect((error as Error).message).toContain('cut off in the middle of an event')
  })

  it('fails with a clear server error, instead of buffering on, when an event is longer than maxEventChars', async () => {
    const long = hello.replace('Grüß Gott', 'x'.repeat(500))
    const body = sse(start, hello, long, finish, usage, done)
    const splitAt = Array.from({ length: Math.ceil(body.length / 50) }, (_, i) => (i + 1) * 50)
    const { adapter, replay } = compatibleWith([{ body, splitAt }], { ...vllm, maxEventChars: 300 })
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([{ type: 'text', text: 'Grüß Gott' }])
    expect(error).toMatchObject({ kind: 'server', provider: 'vllm' })
    expect((error as Error).message).toBe(
      'vllm: an event of the stream is longer than 300 characters',
    )
    expect(replay.aborted()).toBe(true)
  })
})
