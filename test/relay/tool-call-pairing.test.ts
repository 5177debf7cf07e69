/**
 * Tool calls and their results pair up before anything goes upstream: call ids are not repeated
 * within a turn, a result answers a call that was made and is the only one for it, and a
 * conversation does not end on calls. `/v1/chat` and `/v1/chat/completions` refuse the rest with
 * a 400 naming the field, each in its own error shape. A call the next turn leaves unanswered (the
 * app did not run it, and the user went on) goes upstream answered as not given, as every provider
 * takes it (`sendableTurns`), so the chat goes on.
 */
import { describe, expect, it } from 'vitest'
import { mock } from '../../src/providers/mock/index.ts'
import { createRelay } from '../../src/relay/index.ts'
import { chat, errorBody, streamed } from './helpers.ts'

const user = { role: 'user', content: 'Weather in Oslo and Bergen?' }
const call = (id: string) => ({ id, name: 'weather', input: { city: id } })
const asks = (...ids: string[]) => ({
  role: 'assistant',
  text: '',
  toolCalls: ids.map(call),
  stopReason: 'tool-calls',
})
const answers = (...ids: string[]) => ({
  role: 'tool',
  results: ids.map((id) => ({ callId: id, name: 'weather', output: 'sunny' })),
})

describe('/v1/chat: tool calls and results pair up', () => {
  const cases: [string, unknown[], string, string][] = [
    [
      'a conversation that ends on tool calls',
      [user, asks('a', 'b')],
      'conversation.turns[1].toolCalls[0]',
      "conversation.turns[1].toolCalls[0] has no result: a tool turn after it must answer 'a'",
    ],
    [
      'a call id repeated within one turn',
      [user, asks('a', 'a'), answers('a')],
      'conversation.turns[1].toolCalls[1].id',
      "conversation.turns[1].toolCalls[1].id repeats the tool call id 'a'",
    ],
    [
      'a call answered twice',
      [user, asks('a', 'b'), answers('a'), answers('a', 'b')],
      'conversation.turns[3].results[0].callId',
      "conversation.turns[3].results[0].callId 'a' is answered already",
    ],
    [
      'a result for a call no turn before it made',
      [user, asks('a'), answers('a', 'zz')],
      'conversation.turns[2].results[1].callId',
      "conversation.turns[2].results[1].callId 'zz' matches no tool call of the turn before",
    ],
  ]

  it.each(cases)('refuses %s with a 400 naming the field', async (_, turns, field, message) => {
    const upstream = mock()
    const relay = createRelay({ providers: { mock: [upstream] } })
    const response = await chat(relay, { model: 'mock/echo', conversation: { turns } })
    expect(response.status).toBe(400)
    expect(await errorBody(response)).toEqual({ kind: 'invalid-request', field, message })
    expect(upstream.calls).toHaveLength(0)
  })

  it('takes every call answered, in one tool turn or over several', async () => {
    const upstream = mock()
    const relay = createRelay({ providers: { mock: [upstream] } })
    for (const turns of [
      [user, asks('a', 'b'), answers('b', 'a')],
      [user, asks('a', 'b'), answers('a'), answers('b'), asks('a'), answers('a'), user],
    ]) {
      await streamed(await chat(relay, { model: 'mock/echo', conversation: { turns } }))
    }
    expect(upstream.calls).toHaveLength(2)
  })

  it('sends calls the next turn leaves unanswered as not given, so the chat goes on', async () => {
    const upstream = mock()
    const relay = createRelay({ providers: { mock: [upstream] } })
    for (const turns of [
      [user, asks('a'), { role: 'user', content: 'Never mind.' }],
      [user, asks('a', 'b'), answers('a'), user],
      [user, asks('a', 'b'), answers('a')],
    ]) {
      const response = await chat(relay, { model: 'mock/echo', conversation: { turns } })
      expect(response.status).toBe(200)
      await streamed(response)
    }
    expect(upstream.calls).toHaveLength(3)
    // What went upstream answers every call: those left open with an error result.
    for (const { request } of upstream.calls) {
      const asked = request.flatMap((turn) =>
        turn.role === 'assistant' && 'toolCalls' in turn ? turn.toolCalls.map((c) => c.id) : [],
      )
      const answered = request.flatMap((turn) =>
        turn.role === 'tool' ? turn.results.map((r) => (r as { callId: string }).callId) : [],
      )
      expect(answered.toSorted()).toEqual(asked.toSorted())
    }
  })
})

describe('/v1/chat/completions: tool calls and results pair up', () => {
  const question = { role: 'user', content: 'Weather in Oslo and Bergen?' }
  const calls = (...ids: string[]) => ({
    role: 'assistant',
    content: null,
    tool_calls: ids.map((id) => ({
      id,
      type: 'function',
      function: { name: 'weather', arguments: JSON.stringify({ city: id }) },
    })),
  })
  const result = (id: string) => ({ role: 'tool', tool_call_id: id, content: 'sunny' })

  const cases: [string, unknown[], string, string][] = [
    [
      'messages that end on tool calls',
      [question, calls('a', 'b')],
      'messages[1].tool_calls[0]',
      "messages[1].tool_calls[0] has no result: a tool turn after it must answer 'a'",
    ],
    [
      'a call id repeated within one message',
      [question, calls('a', 'a'), result('a')],
      'messages[1].tool_calls[1].id',
      "messages[1].tool_calls[1].id repeats the tool call id 'a'",
    ],
    [
      'a call answered twice',
      [question, calls('a', 'b'), result('a'), result('a'), result('b')],
      'messages[3].tool_call_id',
      "messages[3].tool_call_id 'a' is answered already",
    ],
    [
      'a result for a call no message before it made',
      [question, calls('a'), result('a'), result('zz')],
      'messages[3].tool_call_id',
      "messages[3].tool_call_id 'zz' matches no tool call of an earlier message",
    ],
  ]

  it.each(cases)('refuses %s with a 400 naming the field', async (_, messages, param, message) => {
    const upstream = mock()
    const relay = createRelay({ providers: { mock: [upstream] } })
    const response = await relay.fetch(
      new Request('http://relay.test/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock/echo', messages }),
      }),
    )
    expect(response.status).toBe(400)
    expect(await errorBody(response)).toEqual({
      message,
      type: 'invalid_request_error',
      param,
      code: 'invalid_value',
    })
    expect(upstream.calls).toHaveLength(0)
  })
})
