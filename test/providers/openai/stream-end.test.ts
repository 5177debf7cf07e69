import { describe, expect, it } from 'vitest'
import { sse } from '../../helpers/replay-fetch.ts'
import { doneTurn, failure, run } from '../../helpers/stream.ts'
import { ask, fixture, setup } from './harness.ts'

const answer = fixture('reasoning-then-text.sse')
const bytes = (text: string) => new TextEncoder().encode(text).length

const created = [
  'response.created',
  {
    type: 'response.created',
    sequence_number: 0,
    response: { id: 'r', object: 'response', status: 'in_progress', output: [] },
  },
] as const
const delta = (text: string, sequence: number) =>
  [
    'response.output_text.delta',
    {
      type: 'response.output_text.delta',
      sequence_number: sequence,
      output_index: 0,
      content_index: 0,
      item_id: 'm',
      delta: text,
    },
  ] as [string, unknown]

describe('openai stream: where reading ends', () => {
  it('yields done at the terminal event of a body that stays open, and releases the body', async () => {
    const { adapter, replay } = setup([{ body: answer, stallAfterBytes: bytes(answer) }])
    const { events, error } = await run(adapter.stream(ask))
    expect(error).toBeUndefined()
    expect(doneTurn(events)).toMatchObject({
      text: '9.8 is larger → because 0.80 > 0.11 ✅',
      stopReason: 'stop',
    })
    expect(replay.aborted()).toBe(true)
  })

  it('yields done at response.incomplete on a body that stays open, and releases the body', async () => {
    const cut = fixture('incomplete-cut-function-call.sse')
    const { adapter, replay } = setup([{ body: cut, stallAfterBytes: bytes(cut) }])
    const { events, error } = await run(adapter.stream(ask))
    expect(error).toBeUndefined()
    expect(doneTurn(events)).toMatchObject({
      stopReason: 'length',
      toolCalls: [{ id: 'call_Oslo1' }],
    })
    expect(replay.aborted()).toBe(true)
  })

  it('reads nothing after the terminal event, not even an error event', async () => {
    const after = sse([
      ['error', { type: 'error', code: 'server_error', message: 'late', sequence_number: 99 }],
    ])
    const { adapter } = setup([{ body: answer + after }])
    const { events, error } = await run(adapter.stream(ask))
    expect(error).toBeUndefined()
    expect(doneTurn(events).stopReason).toBe('stop')
  })

  it('stops at [DONE], and fails as cut short when no terminal response came before it', async () => {
    const body = sse([[...created], delta('Half', 1), [null, '[DONE]'], delta(' more', 2)])
    const { adapter, replay } = setup([{ body, stallAfterBytes: bytes(body) }])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([{ type: 'text', text: 'Half' }])
    expect(error).toMatchObject({ kind: 'network', provider: 'openai' })
    expect(replay.aborted()).toBe(true)
  })

  it('fails with a server error naming the bound when an event grows past maxEventChars', async () => {
    const body = sse([[...created], delta('Short', 1), delta('x'.repeat(5_000), 2)])
    // Network reads of 1 KiB: the long event stays unfinished, buffered, across several of them.
    const splitAt = Array.from({ length: Math.ceil(bytes(body) / 1024) }, (_, i) => i * 1024)
    const { adapter, replay } = setup([{ body, splitAt }], { maxEventChars: 4_096 })
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([{ type: 'text', text: 'Short' }])
    expect(error).toMatchObject({ kind: 'server', provider: 'openai' })
    expect((error as Error).message).toBe(
      'openai: an event of the stream is longer than 4096 characters',
    )
    expect(replay.aborted()).toBe(true)
  })

  it('takes a large event under the default bound', async () => {
    const image = 'A'.repeat(2_000_000)
    const body = answer.replaceAll('"encrypted_content":"', `"encrypted_content":"${image}`)
    const splitAt = Array.from({ length: Math.ceil(bytes(body) / 65_536) }, (_, i) => i * 65_536)
    const { adapter } = setup([{ body, splitAt }])
    const { events, error } = await run(adapter.stream(ask))
    expect(error).toBeUndefined()
    const reasoning = doneTurn(events).items?.data[0] as { encrypted_content: string }
    expect(reasoning.encrypted_content.length).toBe(image.length + 35)
  })
})
