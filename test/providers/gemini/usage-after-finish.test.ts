/**
 * Gemini may send the turn's `usageMetadata` in a chunk of its own after the chunk that carries
 * the `finishReason`: the adapter reads on for it (a bounded number of chunks, for a bounded
 * time), so the turn's tokens and cost are counted.
 */
import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { costOf } from '../../../src/core/pricing.ts'
import { geminiCapabilities } from '../../../src/providers/gemini/index.ts'
import {
  collect,
  doneTurn,
  event,
  eventsAtCuts,
  fixture,
  geminiWith,
  textChunk as text,
} from './harness.ts'

const MODEL = 'gemini-3.8-flash'
const ask: Conversation = { turns: [{ role: 'user', content: 'Hauptstadt von Österreich?' }] }
const usage = (counts: Record<string, number>) => ({ usageMetadata: counts })

describe('gemini usage that comes after the finish reason', () => {
  it('counts the usage of a chunk after the finish reason, and prices it', async () => {
    const events = await eventsAtCuts(fixture('usage-after-finish.sse'), ask, MODEL)
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'thinking', text: 'Kurz überlegt: Hauptstadt von Österreich.' },
      { type: 'text', text: 'Wien ist die Hauptstadt – ' },
      { type: 'text', text: 'an der Donau. 🎻' },
    ])
    const turn = doneTurn(events)
    const counts = {
      inputTokens: 1200,
      outputTokens: 400 + 600,
      reasoningTokens: 600,
      cacheReadTokens: 1000,
    }
    const pricing = geminiCapabilities(MODEL).pricing!
    expect(turn).toMatchObject({
      text: 'Wien ist die Hauptstadt – an der Donau. 🎻',
      stopReason: 'stop',
      usage: { ...counts, cost: costOf(counts, pricing) },
    })
    expect(turn.usage.cost).toBeGreaterThan(0)

    const { adapter, replay } = geminiWith(
      [{ body: fixture('usage-after-finish.sse') }, { body: fixture('conversation-3-answer.sse') }],
      MODEL,
    )
    const first = doneTurn(await collect(adapter.stream(ask)))
    expect(first).toEqual(turn)
    await collect(
      adapter.stream({ turns: [...ask.turns, first, { role: 'user', content: 'Und Ungarn?' }] }),
    )
    const body = replay.requests[1]?.body as { contents: unknown[] }
    expect(body.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          { text: 'Kurz überlegt: Hauptstadt von Österreich.', thought: true },
          { text: 'Wien ist die Hauptstadt – an der Donau. 🎻' },
          { text: '', thoughtSignature: 'U0lHLWxhdGUtdXNhZ2U=' },
        ],
      },
      { role: 'user', parts: [{ text: 'Und Ungarn?' }] },
    ])
  })

  it('ends at the finish reason when the usage came with it, although the body stays open', async () => {
    const body =
      event(text('Wien.')) +
      event({ ...text('', 'STOP'), ...usage({ promptTokenCount: 9, candidatesTokenCount: 2 }) })
    const { adapter, replay } = geminiWith([{ body, stallAfterBytes: Buffer.byteLength(body) }])
    const started = Date.now()
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(Date.now() - started).toBeLessThan(500)
    expect(turn.usage).toEqual({ inputTokens: 9, outputTokens: 2 })
    expect(replay.aborted()).toBe(true)
  })

  it('stops waiting for usage a short while after the finish reason when the body stays open', async () => {
    const body =
      event({ ...text('Wien'), ...usage({ promptTokenCount: 9, totalTokenCount: 9 }) }) +
      event(text('.', 'STOP'))
    const { adapter, replay } = geminiWith([{ body, stallAfterBytes: Buffer.byteLength(body) }])
    const turn = doneTurn(await collect(adapter.stream(ask)))
    // The last usage seen is all there is.
    expect(turn).toMatchObject({ text: 'Wien.', usage: { inputTokens: 9, outputTokens: 0 } })
    expect(replay.aborted()).toBe(true)
  })

  it('reads at most a few chunks past the finish reason for usage', async () => {
    const late = usage({ promptTokenCount: 9, candidatesTokenCount: 2 })
    const filler = event({ modelVersion: MODEL })
    const body = event(text('Wien.', 'STOP')) + filler + filler + filler + filler + event(late)
    const { adapter } = geminiWith([{ body }])
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn).toMatchObject({ text: 'Wien.', usage: { inputTokens: 0, outputTokens: 0 } })
  })

  it('keeps the complete turn when the stream fails while it waits for usage', async () => {
    const error = event({ error: { code: 500, message: 'late', status: 'INTERNAL' } })
    const failing = geminiWith([{ body: event(text('Fertig', 'STOP')) + error }])
    expect(doneTurn(await collect(failing.adapter.stream(ask))).text).toBe('Fertig')
    const cut = event(text('Fertig', 'STOP')) + 'data: {"usageMeta'
    const cutOff = geminiWith([{ body: cut }])
    expect(doneTurn(await collect(cutOff.adapter.stream(ask))).text).toBe('Fertig')
    const reset = geminiWith([
      {
        body: event(text('Fertig', 'STOP')) + error,
        cutAfterBytes: event(text('Fertig', 'STOP')).length + 3,
      },
    ])
    expect(doneTurn(await collect(reset.adapter.stream(ask))).text).toBe('Fertig')
  })
})
