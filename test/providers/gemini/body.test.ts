import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import {
  collect,
  doneTurn,
  event,
  failure,
  fixture,
  geminiWith,
  textChunk as text,
} from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Bonjour ?' }] }

describe('gemini body reading', () => {
  it('reads the raw body as SSE: a data line after a comment line in the same event is a chunk', async () => {
    // The SDK's own reader only takes an event whose first line starts with `data:`; a comment
    // line before it (as a proxy may add) would drop the chunk there.
    const body = event(text('Bon')) + `: keep-alive\r\n${event(text('jour', 'STOP'))}`
    const { adapter } = geminiWith([{ body }])
    const events = await collect(adapter.stream(ask))
    expect(events.filter((e) => e.type === 'text')).toEqual([
      { type: 'text', text: 'Bon' },
      { type: 'text', text: 'jour' },
    ])
    expect(doneTurn(events).items?.data).toEqual([{ text: 'Bonjour' }])
  })

  it('keeps parts verbatim, fields it does not know included, in the order they came', async () => {
    const part = { text: 'Salut', thoughtSignature: 'U0lH', partMetadata: { source: 'x' } }
    const body = event({
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    })
    const { adapter } = geminiWith([{ body }])
    expect(doneTurn(await collect(adapter.stream(ask))).items?.data).toEqual([part])
  })

  it('fails with the error of a network chunk that is a bare JSON error body', async () => {
    const body = JSON.stringify({
      error: { code: 503, message: 'Overloaded.', status: 'UNAVAILABLE' },
    })
    const { adapter } = geminiWith([{ body }])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([])
    expect(error).toMatchObject({ kind: 'overloaded', status: 503, retryable: true })
  })

  it('fails with server when a data line is not JSON, after the chunks before it', async () => {
    const body = event(text('Bon')) + 'data: {"candidates":\r\n\r\n' + event(text('jour', 'STOP'))
    const { adapter } = geminiWith([{ body }])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([{ type: 'text', text: 'Bon' }])
    expect(error).toMatchObject({ kind: 'server' })
  })

  it('ignores whitespace after the last event, takes a last chunk that only lacks its blank line, and fails on one cut inside', async () => {
    const finished = event(text('Bonjour', 'STOP'))
    const ok = geminiWith([{ body: `${finished}\r\n  \n` }])
    expect(doneTurn(await collect(ok.adapter.stream(ask))).text).toBe('Bonjour')
    // The terminal chunk is whole: only the blank line after it is missing.
    const unended = geminiWith([{ body: finished.trimEnd() }])
    expect(doneTurn(await collect(unended.adapter.stream(ask))).text).toBe('Bonjour')
    const cut = geminiWith([{ body: finished.trimEnd().slice(0, -3) }])
    const { error } = await failure(cut.adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'network' })
    // The kit's reader words it: the message said "chunk" before the adapter moved onto it.
    expect((error as Error).message).toBe(
      'gemini: the stream was cut off in the middle of an event',
    )
  })

  it('ends the turn at the chunk with the finish reason although the body stays open', async () => {
    const body = fixture('thinking-then-text.sse')
    const { adapter, replay } = geminiWith([{ body, stallAfterBytes: Buffer.byteLength(body) }])
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn.text).toBe('東京は日本の首都です。 🗼')
    expect(turn.usage.outputTokens).toBe(9 + 57)
    // The body is released once the terminal chunk has been read.
    expect(replay.aborted()).toBe(true)
  })

  it('ends at a blocked prompt although the body stays open', async () => {
    const body = fixture('prompt-blocked.sse')
    const { adapter, replay } = geminiWith([{ body, stallAfterBytes: Buffer.byteLength(body) }])
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn.stopReason).toBe('refusal')
    expect(replay.aborted()).toBe(true)
  })

  it('reads nothing after the terminal chunk', async () => {
    const after = event({ error: { code: 500, message: 'late', status: 'INTERNAL' } })
    const { adapter } = geminiWith([{ body: event(text('Fertig', 'STOP')) + after }])
    expect(doneTurn(await collect(adapter.stream(ask))).text).toBe('Fertig')
  })

  it('fails with the error of a bare JSON error body that arrives in several reads', async () => {
    const body = JSON.stringify(
      { error: { code: 429, message: 'Quota exceeded.', status: 'RESOURCE_EXHAUSTED' } },
      null,
      2,
    )
    const { adapter } = geminiWith([{ body: `\n${body}`, splitAt: 'bytes' }])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([])
    expect(error).toMatchObject({ kind: 'rate-limit', status: 429, retryable: true })
    expect((error as Error).message).toContain('Quota exceeded.')
  })

  it('fails with a clear server error on an event longer than the reader holds', async () => {
    // The reader holds up to 32 Mi characters of an event that has not ended yet; this one comes
    // in 1 MiB reads, as a network delivers it, and is 1 Mi characters longer.
    const huge = event(text('x'.repeat(33 * 1024 * 1024)))
    const splitAt = Array.from({ length: 34 }, (_, i) => (i + 1) * 1024 * 1024)
    const body = huge + event(text('!', 'STOP'))
    const { adapter, replay } = geminiWith([{ body, splitAt }])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([])
    expect(error).toMatchObject({ kind: 'server', provider: 'gemini' })
    expect((error as Error).message).toBe(
      'gemini: an event of the stream is longer than 33554432 characters',
    )
    expect(replay.aborted()).toBe(true)
  })
})
