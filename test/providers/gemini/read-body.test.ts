import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { collect, doneTurn, failure, geminiWith } from './helpers.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Bonjour ?' }] }

const event = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\r\n\r\n`
const text = (value: string, finishReason?: string) => ({
  candidates: [
    {
      content: { role: 'model', parts: [{ text: value }] },
      index: 0,
      ...(finishReason === undefined ? {} : { finishReason }),
    },
  ],
})

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

  it('ignores whitespace after the last event but fails on an event left without its blank line', async () => {
    const finished = event(text('Bonjour', 'STOP'))
    const ok = geminiWith([{ body: `${finished}\r\n  \n` }])
    expect(doneTurn(await collect(ok.adapter.stream(ask))).text).toBe('Bonjour')
    const cut = geminiWith([{ body: finished.trimEnd() }])
    const { error } = await failure(cut.adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'network' })
    expect((error as Error).message).toContain('cut off in the middle of a chunk')
  })
})
