import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Conversation, Turn } from '../../../src/core/conversation.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { openaiRequestProblems } from '../../contract/upstreams/openai.ts'
import {
  awkwardCuts,
  errorBody,
  fixture,
  inputOf,
  responseOf,
  responseStream,
  sentBody,
  setup,
} from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Is it hot in Lyon? Chart it.' }] }
const tools = [{ name: 'get_weather', parameters: { type: 'object' } }]

const reasoning = {
  id: 'rs_hosted',
  type: 'reasoning',
  summary: [{ type: 'summary_text', text: 'Search, chart, then ask the tool.' }],
}
const search = {
  id: 'ws_hosted',
  type: 'web_search_call',
  status: 'completed',
  action: {
    type: 'search',
    query: 'Lyon heat',
    sources: [{ type: 'url', url: 'https://m.ex/ly' }],
  },
}
const code = {
  id: 'ci_hosted',
  type: 'code_interpreter_call',
  status: 'completed',
  code: 'print(31 + 2)',
  container_id: 'cntr_1',
  outputs: [{ type: 'logs', logs: '33' }],
}
const image = {
  id: 'ig_hosted',
  type: 'image_generation_call',
  status: 'completed',
  result: 'iVBORw0KGgoChart==',
}
const mcp = {
  id: 'mcp_hosted',
  type: 'mcp_call',
  server_label: 'meteo',
  name: 'alerts',
  arguments: '{"city":"Lyon"}',
  output: 'none',
  status: 'completed',
}
const message = {
  id: 'msg_hosted',
  type: 'message',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', annotations: [], logprobs: [], text: '31 °C → hot 🔥.' }],
}
const call = {
  id: 'fc_hosted',
  type: 'function_call',
  status: 'completed',
  call_id: 'call_hosted',
  name: 'get_weather',
  arguments: '{"city":"Lyon"}',
}

/** A response that reasons, runs four hosted tools, answers and calls a function. */
function answerWith(thought: Record<string, unknown>): string {
  const output = [thought, search, code, image, mcp, message, call]
  const items = output.flatMap((item, output_index) => [
    { type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress' } },
    ...(item === thought
      ? [
          {
            type: 'response.reasoning_summary_text.delta',
            item_id: reasoning.id,
            output_index,
            summary_index: 0,
            delta: 'Search, chart, then ask the tool.',
          },
        ]
      : []),
    ...(item === message
      ? [
          {
            type: 'response.output_text.delta',
            item_id: message.id,
            output_index,
            content_index: 0,
            delta: '31 °C → hot 🔥.',
          },
        ]
      : []),
    { type: 'response.output_item.done', output_index, item },
  ])
  return responseStream([
    { type: 'response.created', response: responseOf('in_progress', []) },
    ...items,
    { type: 'response.completed', response: responseOf('completed', output) },
  ])
}

/** The turn the adapter makes of that response, cut at awkward places, and its tool result. */
async function hostedTurn(thought: Record<string, unknown>): Promise<Turn[]> {
  const body = answerWith(thought)
  const { adapter } = setup([{ body, splitAt: awkwardCuts(body) }])
  const { events, error } = await run(adapter.stream(ask, { tools }))
  expect(error).toBeUndefined()
  expect(events.slice(0, -1)).toEqual([
    { type: 'thinking', text: 'Search, chart, then ask the tool.' },
    { type: 'text', text: '31 °C → hot 🔥.' },
    {
      type: 'tool-call',
      call: { id: 'call_hosted', name: 'get_weather', input: { city: 'Lyon' } },
    },
  ])
  const turn: AssistantTurn = doneTurn(events)
  expect(turn.items?.data).toEqual([thought, search, code, image, mcp, message, call])
  const result = { callId: 'call_hosted', name: 'get_weather', output: '31 °C' }
  return [turn, { role: 'tool', results: [result] }]
}

const answered = { type: 'function_call_output', call_id: 'call_hosted', output: '31 °C' }
const { id: _message, ...unboundMessage } = message
const { id: _call, ...unboundCall } = call
const leftOut = [search, code, image, mcp].map(
  ({ id, type }) =>
    `${type} ${id} left out: the reasoning item it followed is not sent, and the API takes it only with that reasoning item (its id is required)`,
)

describe('openai: hosted tool records of a replayed turn', () => {
  it('sends them verbatim, with their ids, after the encrypted reasoning item they follow', async () => {
    const encrypted = { ...reasoning, encrypted_content: 'gAAAAABpHostedEncrypted==' }
    const turns = await hostedTurn(encrypted)
    const { adapter, replay } = setup([{ body: fixture('reasoning-then-text.sse') }])
    const done = doneTurn(
      (await run(adapter.stream({ turns: [...ask.turns, ...turns] }, { tools }))).events,
    )
    expect(done.warnings).toBeUndefined()
    const sent = sentBody(replay)
    expect(inputOf(sent)).toEqual([
      ask.turns[0],
      encrypted,
      search,
      code,
      image,
      mcp,
      message,
      call,
      answered,
    ])
    expect(openaiRequestProblems(sent)).toEqual([])
  })

  it('leaves them out, each named, when the reasoning item they follow cannot be sent, and sends the answer and call without ids', async () => {
    const turns = await hostedTurn(reasoning)
    const { adapter, replay } = setup([{ body: fixture('reasoning-then-text.sse') }])
    const done = doneTurn(
      (await run(adapter.stream({ turns: [...ask.turns, ...turns] }, { tools }))).events,
    )
    expect(done.warnings).toEqual(leftOut)
    const sent = sentBody(replay)
    expect(inputOf(sent)).toEqual([ask.turns[0], unboundMessage, unboundCall, answered])
    expect(openaiRequestProblems(sent)).toEqual([])
  })

  it('leaves them out of the second request when the API could not verify the reasoning item', async () => {
    const encrypted = { ...reasoning, encrypted_content: 'gAAAAABpHostedEncrypted==' }
    const turns = await hostedTurn(encrypted)
    const { adapter, replay } = setup([
      {
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: errorBody(
          'invalid_encrypted_content',
          'The encrypted content could not be verified.',
        ),
      },
      { body: fixture('reasoning-then-text.sse') },
    ])
    const done = doneTurn(
      (await run(adapter.stream({ turns: [...ask.turns, ...turns] }, { tools }))).events,
    )
    expect(done.warnings).toEqual([
      ...leftOut,
      'encrypted items of earlier turns left out (1: reasoning): the API could not verify them (invalid_encrypted_content)',
    ])
    const retried = sentBody(replay, 1)
    expect(inputOf(retried)).toEqual([ask.turns[0], unboundMessage, unboundCall, answered])
    expect(openaiRequestProblems(retried)).toEqual([])
  })

  it('finds a hosted record sent without its id a problem of the request', () => {
    const { id: _id, ...idless } = search
    expect(openaiRequestProblems({ input: [ask.turns[0], idless] })).toEqual([
      'input[1] is web_search_call without its id',
    ])
  })
})
