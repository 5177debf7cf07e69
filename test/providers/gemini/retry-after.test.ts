import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { event, failure, geminiWith, textChunk } from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Bonjour ?' }] }

/** A Gemini error object without `RetryInfo`, so only a header can say when to retry. */
const overloaded = { error: { code: 503, message: 'Overloaded.', status: 'UNAVAILABLE' } }

describe("gemini: a retry-after header on the error's own response", () => {
  it('sets when to retry an HTTP error', async () => {
    const { adapter } = geminiWith([
      {
        status: 503,
        headers: { 'content-type': 'application/json', 'retry-after': '3' },
        body: JSON.stringify(overloaded),
      },
    ])
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'overloaded', status: 503, retryAfterMs: 3000 })
  })

  it('sets when to retry an error sent as a chunk of the stream, after the chunks before it', async () => {
    const { adapter } = geminiWith([
      {
        headers: { 'content-type': 'text/event-stream', 'retry-after': '2' },
        body: event(textChunk('Bon')) + event(overloaded),
      },
    ])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([{ type: 'text', text: 'Bon' }])
    expect(error).toMatchObject({ kind: 'overloaded', status: 503, retryAfterMs: 2000 })
  })

  it('sets when to retry an error sent as a bare JSON body in place of the stream', async () => {
    const { adapter } = geminiWith([
      { headers: { 'retry-after': '4' }, body: JSON.stringify(overloaded) },
    ])
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'overloaded', status: 503, retryAfterMs: 4000 })
  })
})
