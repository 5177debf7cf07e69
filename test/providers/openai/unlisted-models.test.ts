import { describe, expect, it } from 'vitest'
import type { Conversation, ToolTurn } from '../../../src/core/conversation.ts'
import { createOpenAI } from '../../../src/providers/openai/index.ts'
import { boundedModelSet } from '../../../src/providers/openai/model-set.ts'
import { replayFetch } from '../../helpers/replay-fetch.ts'
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

/** A fine-tuned reasoning model: an id the model table does not know. */
const FINE_TUNED = 'ft:o4-mini-2025-04-16:acme::tw1'
const tools = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
]
const ask: Conversation = { turns: [{ role: 'user', content: 'Weather in Zürich?' }] }
const zurich = { id: 'call_Zurich1', name: 'get_weather', input: { city: 'Zürich', unit: '°C' } }
const answered: ToolTurn = {
  role: 'tool',
  results: [{ callId: 'call_Zurich1', name: 'get_weather', output: '4 °C' }],
}

const refused = errorBody(
  null,
  'Encrypted content is not supported with this model.',
  'invalid_request_error',
)
const refusal = {
  status: 400,
  body: refused,
  headers: { 'content-type': 'application/json' },
}
const answer = responseStream([
  { type: 'response.created', response: responseOf('in_progress', []) },
  {
    type: 'response.output_text.delta',
    item_id: 'msg_1',
    output_index: 0,
    content_index: 0,
    delta: 'Grüezi',
  },
  {
    type: 'response.completed',
    response: responseOf('completed', [
      {
        id: 'msg_1',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Grüezi', annotations: [] }],
      },
    ]),
  },
])

describe('openai: a model the table does not know', () => {
  it('sends the call after a reasoning item it cannot replay without its item id, so the next tool step is taken', async () => {
    const body = fixture('unlisted-reasoning-then-function-call.sse')
    const { adapter, replay } = setup(
      [{ body, splitAt: awkwardCuts(body) }, { body: fixture('reasoning-then-text.sse') }],
      { model: FINE_TUNED },
    )
    const first = await run(adapter.stream(ask, { tools }))
    expect(first.error).toBeUndefined()
    expect(first.events.slice(0, -1)).toEqual([{ type: 'tool-call', call: zurich }])
    const turn = doneTurn(first.events)
    expect(turn).toMatchObject({ stopReason: 'tool-calls', toolCalls: [zurich] })
    // The provider's records stay as it sent them, ids included.
    expect(turn.items?.data).toEqual([
      { id: 'rs_unlisted1', type: 'reasoning', summary: [] },
      expect.objectContaining({ id: 'fc_unlisted1', call_id: 'call_Zurich1' }),
    ])

    const second = await run(adapter.stream({ turns: [...ask.turns, turn, answered] }, { tools }))
    expect(second.error).toBeUndefined()
    const sent = sentBody(replay, 1)
    // With store: false a reasoning item without encrypted_content cannot be sent, and the API
    // refuses the call it made when the call keeps its fc_ id ("provided without its required
    // 'reasoning' item"): call_id alone pairs the call with its output.
    expect(inputOf(sent)).toEqual([
      ask.turns[0],
      {
        type: 'function_call',
        status: 'completed',
        arguments: '{"city":"Zürich","unit":"°C"}',
        call_id: 'call_Zurich1',
        name: 'get_weather',
      },
      { type: 'function_call_output', call_id: 'call_Zurich1', output: '4 °C' },
    ])
    expect(JSON.stringify(sent)).not.toContain('fc_unlisted1')
    expect(openaiRequestProblems(sent)).toEqual([])
  })

  it('keeps the item ids after a reasoning item it replays', async () => {
    const { adapter, replay } = setup([
      { body: fixture('reasoning-then-function-calls.sse') },
      { body: fixture('reasoning-then-text.sse') },
    ])
    const turn = doneTurn((await run(adapter.stream(ask, { tools }))).events)
    await run(
      adapter.stream(
        {
          turns: [
            ...ask.turns,
            turn,
            {
              role: 'tool',
              results: [
                { callId: 'call_Paris1', name: 'get_weather', output: '18' },
                { callId: 'call_Tokyo2', name: 'get_weather', output: '21' },
              ],
            },
          ],
        },
        { tools },
      ),
    )
    expect(inputOf(sentBody(replay)).slice(1, 4)).toEqual(turn.items!.data)
  })

  it('asks it for encrypted reasoning, with no reasoning settings unless the call asks', async () => {
    const { adapter, replay } = setup([{ body: answer }], { model: FINE_TUNED })
    const { events } = await run(adapter.stream(ask))
    expect(doneTurn(events).text).toBe('Grüezi')
    const body = sentBody(replay)
    expect(body['include']).toEqual(['reasoning.encrypted_content'])
    expect(body).not.toHaveProperty('reasoning')
  })

  it('asks again without encrypted reasoning once when the model refuses it, and remembers that for the model', async () => {
    const replay = replayFetch((_, index) =>
      index === 0 ? refusal : { body: answer, splitAt: awkwardCuts(answer) },
    )
    const factory = createOpenAI({ apiKey: 'sk-test-key-0123456789', fetch: replay.fetch })
    const deployment = factory('my-gpt-4o-deployment')
    const { events, error } = await run(
      deployment.stream(ask, {
        providerOptions: { openai: { include: ['message.output_text.logprobs'] } },
      }),
    )
    expect(error).toBeUndefined()
    expect(events.slice(0, -1)).toEqual([{ type: 'text', text: 'Grüezi' }])
    const turn = doneTurn(events)
    expect(turn).toMatchObject({ text: 'Grüezi', stopReason: 'stop' })
    expect(turn.warnings).toEqual([
      'reasoning.encrypted_content dropped: my-gpt-4o-deployment does not take encrypted content',
    ])
    expect(replay.requests).toHaveLength(2)
    expect(sentBody(replay, 0)['include']).toEqual([
      'reasoning.encrypted_content',
      'message.output_text.logprobs',
    ])
    // The retry is the same request without the include the model refused.
    const { include: _first, ...rest } = sentBody(replay, 0)
    const { include: second, ...retried } = sentBody(replay, 1)
    expect(second).toEqual(['message.output_text.logprobs'])
    expect(retried).toEqual(rest)

    // The next call to the model, by this adapter or another of the factory, asks once, without it.
    await run(
      deployment.stream({ turns: [...ask.turns, turn, { role: 'user', content: 'Und morgen?' }] }),
    )
    await run(factory('my-gpt-4o-deployment').stream(ask))
    expect(replay.requests).toHaveLength(4)
    expect(sentBody(replay, 2)).not.toHaveProperty('include')
    expect(sentBody(replay, 3)).not.toHaveProperty('include')
    expect(doneTurn((await run(deployment.stream(ask))).events).warnings).toBeUndefined()
    // Another model of the factory is still asked for it.
    await run(factory('my-o4-deployment').stream(ask))
    expect(sentBody(replay)['include']).toEqual(['reasoning.encrypted_content'])
  })

  it('surfaces the refusal when the request asked for no encrypted reasoning, and retries only once', async () => {
    const never = setup([refusal], { model: 'gpt-4.1' })
    const plain = await run(never.adapter.stream(ask))
    expect(plain.error).toMatchObject({ kind: 'invalid-request', status: 400 })
    expect(never.replay.requests).toHaveLength(1)

    const twice = setup([refusal], { model: FINE_TUNED })
    const again = await run(twice.adapter.stream(ask))
    expect(again.events).toEqual([])
    expect(again.error).toMatchObject({ kind: 'invalid-request', status: 400 })
    expect(twice.replay.requests).toHaveLength(2)
  })

  it('takes a refusal of the include from a Responses server that words it its own way', async () => {
    const invalid = (value: string) => ({
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        error: {
          message: `Invalid value: '${value}'. Supported values are: 'message.output_text.logprobs'.`,
          type: 'invalid_request_error',
          param: 'include',
          code: 'invalid_value',
        },
      }),
    })
    const local = setup([invalid('reasoning.encrypted_content'), { body: answer }], {
      model: 'gpt-oss:20b',
      baseURL: 'http://localhost:11434/v1',
    })
    const { events } = await run(local.adapter.stream(ask))
    expect(doneTurn(events).warnings).toEqual([
      'reasoning.encrypted_content dropped: gpt-oss:20b does not take encrypted content',
    ])
    expect(sentBody(local.replay, 1)).not.toHaveProperty('include')
    // An include of the caller's own that the server refuses is not this.
    const own = setup([invalid('file_search_call.results')], { model: 'gpt-oss:20b' })
    const failed = await run(
      own.adapter.stream(ask, {
        providerOptions: { openai: { include: ['file_search_call.results'] } },
      }),
    )
    expect(failed.error).toMatchObject({ kind: 'invalid-request', status: 400 })
    expect(own.replay.requests).toHaveLength(1)
  })

  it('remembers at most a bounded number of refusing models, forgetting the one learnt longest ago', () => {
    const models = boundedModelSet(2)
    models.add('a')
    models.add('b')
    models.add('a')
    models.add('c')
    expect(['a', 'b', 'c'].map((model) => models.has(model))).toEqual([true, false, true])
  })
})
