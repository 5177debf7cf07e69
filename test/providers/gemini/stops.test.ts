import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import {
  collect,
  doneTurn,
  event,
  eventsAtCuts,
  failure,
  failureAtCuts,
  fixture,
  geminiWith,
  textChunk,
} from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Plane die Reise.' }] }
const answer = fixture('conversation-3-answer.sse')

/** The `contents` of the n-th request the replaying fetch received. */
const contentsOf = (replay: ReturnType<typeof geminiWith>['replay'], n: number) =>
  (replay.requests[n]!.body as { contents: unknown[] }).contents

describe('gemini: a call cut off by the output limit', () => {
  it('is never streamed, kept or replayed; the calls before it stay, and the turn says length', async () => {
    const events = await eventsAtCuts(fixture('max-tokens-cut-call.sse'), ask)
    const weather = { id: 'fc_weather', name: 'get_weather', input: { city: 'Zürich' } }
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([
      { type: 'tool-call', call: weather },
    ])
    const turn = doneTurn(events)
    expect(turn.toolCalls).toEqual([weather])
    expect(turn.stopReason).toBe('length')
    expect(turn.warnings).toEqual([
      'tool call book_hotel dropped: the answer stopped (MAX_TOKENS) before its arguments were complete',
    ])
    expect(turn.items?.data).toEqual([
      { text: 'Erst das Wetter, dann das Hotel.', thought: true },
      {
        functionCall: { id: 'fc_weather', name: 'get_weather', args: { city: 'Zürich' } },
        thoughtSignature: 'U0lHLWN1dC1jYWxsLTE=',
      },
    ])
    expect(JSON.stringify(turn)).not.toContain('book_hotel"')
  })

  it('replays the turn with only the complete call, answered', async () => {
    const { adapter, replay } = geminiWith([
      { body: fixture('max-tokens-cut-call.sse') },
      { body: answer },
    ])
    const conversation: Conversation = { turns: [...ask.turns] }
    const turn = doneTurn(await collect(adapter.stream(conversation)))
    conversation.turns.push(turn, {
      role: 'tool',
      results: [{ callId: 'fc_weather', name: 'get_weather', output: '9 °C' }],
    })
    await collect(adapter.stream(conversation))
    expect(contentsOf(replay, 1).slice(1)).toEqual([
      { role: 'model', parts: turn.items?.data },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'fc_weather',
              name: 'get_weather',
              response: { output: '9 °C' },
            },
          },
        ],
      },
    ])
    expect(JSON.stringify(replay.requests[1]?.body)).not.toContain('book_hotel')
  })

  it('drops a cut call although the stream ends with an empty text part', async () => {
    const body =
      event({
        candidates: [{ content: { parts: [{ functionCall: { name: 'f', willContinue: true } }] } }],
      }) +
      event({
        candidates: [
          {
            content: { parts: [{ text: '' }] },
            finishReason: 'MAX_TOKENS',
          },
        ],
      })
    const { adapter } = geminiWith([{ body }])
    const events = await collect(adapter.stream(ask))
    expect(events.some((e) => e.type === 'tool-call')).toBe(false)
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('length')
    expect(turn.toolCalls).toBeUndefined()
    // Nothing is left to replay: the turn has no items and is left out of the next request.
    expect(turn.items).toBeUndefined()
    expect(turn.warnings).toEqual([
      'tool call f dropped: the answer stopped (MAX_TOKENS) before its arguments were complete',
    ])
  })

  it('still emits a call left open when the answer ends normally', async () => {
    const body =
      event({
        candidates: [
          {
            content: {
              parts: [
                { functionCall: { name: 'f', willContinue: true } },
                {
                  functionCall: {
                    partialArgs: [{ jsonPath: '$.n', numberValue: 3 }],
                    willContinue: true,
                  },
                },
              ],
            },
          },
        ],
      }) + event({ candidates: [{ content: { parts: [{ text: '' }] }, finishReason: 'STOP' }] })
    const { adapter } = geminiWith([{ body }])
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn.toolCalls).toEqual([{ id: 'gemini_1_0', name: 'f', input: { n: 3 } }])
    expect(turn.stopReason).toBe('tool-calls')
    expect(turn.warnings).toBeUndefined()
  })
})

describe('gemini: refusals are turns', () => {
  it('ends a safety stop as a refusal turn with the reason and Gemini’s message, at each kind of cut', async () => {
    const turn = doneTurn(await eventsAtCuts(fixture('safety-stop.sse'), ask))
    expect(turn.stopReason).toBe('refusal')
    expect(turn.stopDetails).toEqual({
      category: 'SAFETY',
      explanation: 'Blocked by safety filters.',
    })
    expect(turn.text).toBe('Ich kann dabei nicht helfen — ')
    expect(turn.warnings).toBeUndefined()
    expect(turn.items?.data).toEqual([{ text: 'Ich kann dabei nicht helfen — ' }])
  })

  it('replays a refusal as the text that arrived, and the conversation goes on', async () => {
    const { adapter, replay } = geminiWith([{ body: fixture('safety-stop.sse') }, { body: answer }])
    const conversation: Conversation = { turns: [...ask.turns] }
    const turn = doneTurn(await collect(adapter.stream(conversation)))
    conversation.turns.push(turn, { role: 'user', content: 'Dann anders.' })
    await collect(adapter.stream(conversation))
    expect(contentsOf(replay, 1)).toEqual([
      { role: 'user', parts: [{ text: 'Plane die Reise.' }] },
      { role: 'model', parts: [{ text: 'Ich kann dabei nicht helfen — ' }] },
      { role: 'user', parts: [{ text: 'Dann anders.' }] },
    ])
  })

  it.each(['RECITATION', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII'])(
    'ends a %s stop as a refusal with that category',
    async (reason) => {
      const { adapter } = geminiWith([{ body: event(textChunk('Teil', reason)) }])
      const turn = doneTurn(await collect(adapter.stream(ask)))
      expect(turn.stopReason).toBe('refusal')
      expect(turn.stopDetails).toEqual({ category: reason })
    },
  )

  it('explains a safety stop without a message by its blocked categories', async () => {
    const body = event({
      candidates: [
        {
          finishReason: 'SAFETY',
          safetyRatings: [
            { category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true },
            { category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' },
          ],
        },
      ],
      usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 },
    })
    const { adapter } = geminiWith([{ body }])
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn.stopReason).toBe('refusal')
    expect(turn.stopDetails).toEqual({
      category: 'SAFETY',
      explanation: 'HARM_CATEGORY_HARASSMENT',
    })
    // Gemini streams no content for an answer its filter blocked whole: nothing to replay.
    expect(turn.text).toBe('')
    expect(turn.items).toBeUndefined()
    expect(turn.usage).toEqual({ inputTokens: 7, outputTokens: 0 })
  })

  it('drops a call a safety stop cut off, and keeps the one before it', async () => {
    const signed = {
      functionCall: { name: 'lookup', args: { q: 'a' } },
      thoughtSignature: 'U0lHLXNhZmV0eQ==',
    }
    const body =
      event({ candidates: [{ content: { parts: [signed] } }] }) +
      event({
        candidates: [
          { content: { parts: [{ functionCall: { name: 'send', willContinue: true } }] } },
        ],
      }) +
      event({ candidates: [{ finishReason: 'SAFETY' }] })
    const { adapter } = geminiWith([{ body }])
    const events = await collect(adapter.stream(ask))
    expect(
      events
        .filter((e) => e.type === 'tool-call')
        .map((e) => e.type === 'tool-call' && e.call.name),
    ).toEqual(['lookup'])
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('refusal')
    expect(turn.stopDetails).toEqual({ category: 'SAFETY' })
    expect(turn.items?.data).toEqual([signed])
    expect(turn.warnings).toEqual([
      'tool call send dropped: the answer stopped (SAFETY) before its arguments were complete',
    ])
  })

  it('ends a blocked prompt as a refusal turn with the block reason, at each kind of cut', async () => {
    const events = await eventsAtCuts(fixture('prompt-blocked.sse'), ask)
    expect(events).toHaveLength(1)
    const turn = doneTurn(events)
    expect(turn).toMatchObject({
      text: '',
      stopReason: 'refusal',
      stopDetails: { category: 'PROHIBITED_CONTENT' },
      usage: { inputTokens: 9, outputTokens: 0 },
    })
    expect(turn.items).toBeUndefined()
  })

  it('takes the block message and blocked categories a prompt block gives', async () => {
    const body = event({
      promptFeedback: {
        blockReason: 'JAILBREAK',
        blockReasonMessage: 'The prompt tries to get around the rules.',
        safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', blocked: true }],
      },
    })
    const { adapter } = geminiWith([{ body }])
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn.stopDetails).toEqual({
      category: 'JAILBREAK',
      explanation: 'The prompt tries to get around the rules.',
    })
  })

  it('leaves a blocked prompt’s turn out of the next request, asking both questions at once', async () => {
    const { adapter, replay } = geminiWith([
      { body: fixture('prompt-blocked.sse') },
      { body: answer },
    ])
    const conversation: Conversation = { turns: [...ask.turns] }
    const turn = doneTurn(await collect(adapter.stream(conversation)))
    conversation.turns.push(turn, { role: 'user', content: 'Anders gefragt: wohin?' })
    await collect(adapter.stream(conversation))
    expect(contentsOf(replay, 1)).toEqual([
      { role: 'user', parts: [{ text: 'Plane die Reise.\n\nAnders gefragt: wohin?' }] },
    ])
  })

  it('ends at a refusal although the body stays open', async () => {
    const body = fixture('safety-stop.sse')
    const { adapter, replay } = geminiWith([{ body, stallAfterBytes: Buffer.byteLength(body) }])
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn.stopReason).toBe('refusal')
    expect(replay.aborted()).toBe(true)
  })

  it('gives an unusual stop its reason and message as stop details', async () => {
    const body = event({
      candidates: [
        {
          content: { parts: [{ text: 'Ce' }] },
          finishReason: 'LANGUAGE',
          finishMessage: 'Unsupported language.',
        },
      ],
    })
    const { adapter } = geminiWith([{ body }])
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn.stopReason).toBe('other')
    expect(turn.stopDetails).toEqual({ category: 'LANGUAGE', explanation: 'Unsupported language.' })
  })
})

describe('gemini: tool use Gemini could not take', () => {
  it('fails a malformed function call with invalid-output and Gemini’s message, after what streamed', async () => {
    const { events, error } = await failureAtCuts(fixture('malformed-function-call.sse'), ask)
    expect(events).toEqual([{ type: 'thinking', text: 'Ich rufe das Werkzeug auf.' }])
    expect(error).toMatchObject({ kind: 'invalid-output', retryable: false, provider: 'gemini' })
    expect((error as Error).message).toBe(
      "gemini: the model's tool use could not be taken (MALFORMED_FUNCTION_CALL): Malformed function call: print(default_api.get_weather(city='München'",
    )
  })

  it.each(['UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS'])(
    'fails %s with invalid-output and no done',
    async (reason) => {
      const body = event({ candidates: [{ content: { parts: [] }, finishReason: reason }] })
      const { adapter } = geminiWith([{ body }])
      const { events, error } = await failure(adapter.stream(ask))
      expect(events).toEqual([])
      expect(error).toMatchObject({ kind: 'invalid-output', retryable: false })
      expect((error as Error).message).toBe(
        `gemini: the model's tool use could not be taken (${reason})`,
      )
    },
  )
})

describe('gemini: an answer Gemini can continue', () => {
  it('ends at CONTINUATION as length, keeping the last token after the parts', async () => {
    const turn = doneTurn(await eventsAtCuts(fixture('continuation.sse'), ask))
    expect(turn.text).toBe(
      'Kapitel 1: Es war einmal ein Berg, der höher wuchs als alle anderen. Eines Tages … 🏔️',
    )
    expect(turn.stopReason).toBe('length')
    expect(turn.stopDetails).toEqual({ category: 'CONTINUATION' })
    expect(turn.items?.data).toEqual([
      {
        text: 'Kapitel 1: Es war einmal ein Berg, der höher wuchs als alle anderen. Eines Tages … 🏔️',
      },
      { text: '', thoughtSignature: 'U0lHLWNvbnRpbnVhdGlvbg==' },
      { continuationToken: 'Q09OVElOVUFUSU9OLTI=' },
    ])
  })

  it('replays the turn’s parts without the token, which is not a part', async () => {
    const { adapter, replay } = geminiWith([
      { body: fixture('continuation.sse') },
      { body: answer },
    ])
    const conversation: Conversation = { turns: [...ask.turns] }
    const turn = doneTurn(await collect(adapter.stream(conversation)))
    conversation.turns.push(turn, { role: 'user', content: 'Weiter.' })
    await collect(adapter.stream(conversation))
    expect(contentsOf(replay, 1)[1]).toEqual({
      role: 'model',
      parts: [
        {
          text: 'Kapitel 1: Es war einmal ein Berg, der höher wuchs als alle anderen. Eines Tages … 🏔️',
        },
        { text: '', thoughtSignature: 'U0lHLWNvbnRpbnVhdGlvbg==' },
      ],
    })
    expect(JSON.stringify(replay.requests[1]?.body)).not.toContain('continuationToken')
  })

  it('resumes with a token given in providerOptions, sent as the request’s continuationToken', async () => {
    const { adapter, replay } = geminiWith([{ body: answer }])
    await collect(
      adapter.stream(ask, {
        providerOptions: { gemini: { continuationToken: 'Q09OVElOVUFUSU9OLTI=' } },
      }),
    )
    expect(replay.requests[0]?.body).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'Plane die Reise.' }] }],
      continuationToken: 'Q09OVElOVUFUSU9OLTI=',
    })
  })

  it('forgets a checkpoint token when the answer then finishes normally', async () => {
    const body =
      event({
        candidates: [{ content: { parts: [{ text: 'a' }] }, continuationToken: 'Q0hFQ0s=' }],
      }) + event(textChunk('b', 'STOP'))
    const { adapter } = geminiWith([{ body }])
    const turn = doneTurn(await collect(adapter.stream(ask)))
    expect(turn.stopReason).toBe('stop')
    expect(turn.stopDetails).toBeUndefined()
    expect(turn.items?.data).toEqual([{ text: 'ab' }])
  })
})
