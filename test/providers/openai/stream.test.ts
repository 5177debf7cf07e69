import { describe, expect, it } from 'vitest'
import { isThinkwireError } from '../../../src/core/errors.ts'
import { sse } from '../../helpers/replay-fetch.ts'
import { cutsThatDiffer, doneTurn } from '../../helpers/stream.ts'
import { fixture, fixtureNames, replayOnce } from './harness.ts'

describe('openai stream', () => {
  it('streams the reasoning summary as thinking, a paragraph between parts, then the answer', async () => {
    const { events, error } = await replayOnce(fixture('reasoning-then-text.sse'))
    expect(error).toBeUndefined()
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: '**Plan** → compare' },
      { type: 'thinking', text: ' 9.11 and 9.8 é' },
      { type: 'thinking', text: '\n\nThen answer 🙂' },
      { type: 'text', text: '9.8 is larger → ' },
      { type: 'text', text: 'because 0.80 > 0.11 ✅' },
    ])
    const turn = doneTurn(events)
    expect(turn).toMatchObject({
      text: '9.8 is larger → because 0.80 > 0.11 ✅',
      thinking: '**Plan** → compare 9.11 and 9.8 é\n\nThen answer 🙂',
      stopReason: 'stop',
      usage: {
        inputTokens: 40,
        outputTokens: 90,
        reasoningTokens: 64,
        cacheReadTokens: 16,
        cacheWriteTokens: 0,
      },
    })
    // Plain JSON, as the provider sent it: no SDK getters, hidden fields or class instances.
    expect(JSON.parse(JSON.stringify(turn.items))).toStrictEqual(turn.items)
    expect(turn.items).toEqual({
      provider: 'openai',
      model: 'gpt-5.4',
      thinkingMode: 'default',
      data: [
        {
          id: 'rs_fixture1',
          type: 'reasoning',
          summary: [
            { type: 'summary_text', text: '**Plan** → compare 9.11 and 9.8 é' },
            { type: 'summary_text', text: 'Then answer 🙂' },
          ],
          encrypted_content: 'gAAAAABpReasoningFixtureEncrypted==',
        },
        {
          id: 'msg_fixture1',
          type: 'message',
          status: 'completed',
          content: [
            {
              type: 'output_text',
              annotations: [],
              logprobs: [],
              text: '9.8 is larger → because 0.80 > 0.11 ✅',
            },
          ],
          role: 'assistant',
        },
      ],
    })
  })

  it('emits completed function calls, arguments split inside a string and a \\u escape, keyed by call_id', async () => {
    const { events } = await replayOnce(fixture('reasoning-then-function-calls.sse'))
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: 'Need live weather → call the tool.' },
      {
        type: 'tool-call',
        call: { id: 'call_Paris1', name: 'get_weather', input: { city: 'Paris', note: 'café' } },
      },
      {
        type: 'tool-call',
        call: { id: 'call_Tokyo2', name: 'get_weather', input: { city: '東京' } },
      },
    ])
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('tool-calls')
    expect(turn.items?.data.map((item) => (item as { type: string }).type)).toEqual([
      'reasoning',
      'function_call',
      'function_call',
    ])
  })

  it('throws the failed response as a retryable server error, after what had streamed, with no done', async () => {
    const { events, error } = await replayOnce(fixture('failed.sse'))
    expect(events).toEqual([{ type: 'thinking', text: 'Thinking… ' }])
    expect(error).toMatchObject({ kind: 'server', retryable: true, provider: 'openai' })
    expect((error as Error).message).toContain('The server had an error')
  })

  it('ends a response cut off by max_output_tokens with a done whose stop reason is length', async () => {
    const { events, error } = await replayOnce(fixture('incomplete.sse'))
    expect(error).toBeUndefined()
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('length')
    expect(turn.text).toBe('Primes: 2, 3, 5, 7, 11, 13 →')
    expect(turn.items?.data).toHaveLength(2)
  })

  it('throws a rate-limit for an error event, after the text that had streamed', async () => {
    const { events, error } = await replayOnce(fixture('error-event.sse'))
    expect(events).toEqual([{ type: 'text', text: 'Début de réponse ' }])
    expect(isThinkwireError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'rate-limit', retryable: true })
  })

  it('throws a rate-limit that is not retryable for an insufficient_quota error event in its nested form', async () => {
    const { events, error } = await replayOnce(fixture('error-event-nested.sse'))
    expect(events).toEqual([])
    expect(error).toMatchObject({ kind: 'rate-limit', retryable: false, provider: 'openai' })
  })

  it('streams a refusal as text and ends with stop reason refusal', async () => {
    const { events } = await replayOnce(fixture('refusal.sse'))
    const turn = doneTurn(events)
    expect(turn.text).toBe('I can’t help with that — sorry.')
    expect(turn.stopReason).toBe('refusal')
    expect(turn.stopDetails).toEqual({
      category: 'refusal',
      explanation: 'I can’t help with that — sorry.',
    })
  })

  it('puts a paragraph between two messages of one response', async () => {
    const message = (i: number, text: string) => ({
      id: `msg_${i}`,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text, annotations: [] }],
    })
    const body = sse([
      [
        'response.created',
        {
          type: 'response.created',
          sequence_number: 0,
          response: { id: 'r', object: 'response', status: 'in_progress', output: [] },
        },
      ],
      [
        'response.output_text.delta',
        {
          type: 'response.output_text.delta',
          sequence_number: 1,
          output_index: 0,
          content_index: 0,
          item_id: 'msg_0',
          delta: 'Checking.',
        },
      ],
      [
        'response.output_text.delta',
        {
          type: 'response.output_text.delta',
          sequence_number: 2,
          output_index: 2,
          content_index: 0,
          item_id: 'msg_2',
          delta: 'Done.',
        },
      ],
      [
        'response.completed',
        {
          type: 'response.completed',
          sequence_number: 3,
          response: {
            id: 'r',
            object: 'response',
            status: 'completed',
            output: [message(0, 'Checking.'), message(2, 'Done.')],
            usage: null,
          },
        },
      ],
    ])
    const { events } = await replayOnce(body)
    expect(events.slice(0, -1)).toEqual([
      { type: 'text', text: 'Checking.' },
      { type: 'text', text: '\n\nDone.' },
    ])
    expect(doneTurn(events).usage).toEqual({ inputTokens: 0, outputTokens: 0, cost: 0 })
  })

  it('fails when the stream ends before a terminal response event', async () => {
    const body = sse([
      [
        'response.created',
        {
          type: 'response.created',
          sequence_number: 0,
          response: { id: 'r', object: 'response', status: 'in_progress', output: [] },
        },
      ],
      [
        'response.output_text.delta',
        {
          type: 'response.output_text.delta',
          sequence_number: 1,
          output_index: 0,
          content_index: 0,
          item_id: 'm',
          delta: 'Half',
        },
      ],
    ])
    const { events, error } = await replayOnce(body)
    expect(events).toEqual([{ type: 'text', text: 'Half' }])
    expect(error).toMatchObject({ kind: 'network' })
  })

  for (const name of fixtureNames()) {
    it(`yields the same events for ${name} in one read, an event per read, and cut inside lines and characters`, async () => {
      const body = fixture(name)
      const { cuts, differs } = await cutsThatDiffer(body, (splitAt) => replayOnce(body, splitAt))
      expect(cuts).toEqual(expect.arrayContaining(['an event per read', 'each line cut in two']))
      expect(differs).toEqual([])
    })
  }
})
