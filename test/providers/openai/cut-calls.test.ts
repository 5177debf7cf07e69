import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Conversation } from '../../../src/core/conversation.ts'
import { doneTurn, failure, run } from '../../helpers/stream.ts'
import { openaiRequestProblems } from '../../contract/upstreams/openai.ts'
import {
  fixture,
  inputOf,
  replayOnce,
  responseOf,
  responseStream,
  sentBody,
  setup,
} from './harness.ts'

const tools = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
]
const ask: Conversation = { turns: [{ role: 'user', content: 'Weather in Oslo and Bergen?' }] }

/** The `response` of the stream's terminal event. */
function terminalOutput(body: string): unknown[] {
  const last = body.trim().split('\n').at(-1)!
  return (JSON.parse(last.slice('data: '.length)) as { response: { output: unknown[] } }).response
    .output
}

const reasoning = {
  id: 'rs_inline',
  type: 'reasoning',
  summary: [],
  encrypted_content: 'gAAAAABpInlineEncrypted==',
}
const added = (output_index: number, item: object) => ({
  type: 'response.output_item.added',
  output_index,
  item,
})
const done = (output_index: number, item: object) => ({
  type: 'response.output_item.done',
  output_index,
  item,
})
const created = { type: 'response.created', response: responseOf('in_progress', []) }
const cutByLimit = { incomplete_details: { reason: 'max_output_tokens' } }

describe('openai: a tool call cut off by the output limit', () => {
  it('is never yielded, kept in toolCalls or items, nor replayed; the call before it is, and a warning names it', async () => {
    const body = fixture('incomplete-cut-function-call.sse')
    const { adapter, replay } = setup([{ body }])
    const { events, error } = await run(adapter.stream(ask, { tools }))
    expect(error).toBeUndefined()
    const oslo = { id: 'call_Oslo1', name: 'get_weather', input: { city: 'Oslo', note: 'fjørd' } }
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: 'Two cities → two calls.' },
      { type: 'tool-call', call: oslo },
    ])
    const turn = doneTurn(events)
    expect(turn).toMatchObject({ stopReason: 'length', toolCalls: [oslo] })
    expect(turn.warnings).toEqual([
      'tool call call_Bergen2 (get_weather) dropped: it was cut off by the output limit (max_output_tokens)',
    ])
    // The provider's own records of what completed, untouched; the cut call is gone.
    const [rs, fc1, fc2] = terminalOutput(body)
    expect(fc2).toMatchObject({ call_id: 'call_Bergen2', status: 'incomplete' })
    expect(turn.items?.data).toEqual([rs, fc1])

    const next: Conversation = {
      turns: [
        ...ask.turns,
        turn,
        { role: 'tool', results: [{ callId: 'call_Oslo1', name: 'get_weather', output: '4 °C' }] },
      ],
    }
    await run(adapter.stream(next, { tools }))
    const sent = sentBody(replay)
    expect(inputOf(sent)).toEqual([
      ask.turns[0],
      rs,
      fc1,
      { type: 'function_call_output', call_id: 'call_Oslo1', output: '4 °C' },
    ])
    expect(JSON.stringify(sent)).not.toContain('call_Bergen2')
    expect(openaiRequestProblems(sent)).toEqual([])
  })

  it('drops a call whose item completed as incomplete (even with empty arguments) or with arguments that are not JSON', async () => {
    const call = (id: string, args: string, status: string) => ({
      id: `fc_${id}`,
      type: 'function_call',
      status,
      arguments: args,
      call_id: id,
      name: 'get_weather',
    })
    const empty = call('call_empty', '', 'incomplete')
    const broken = call('call_broken', '{"city":"Tro', 'completed')
    const body = responseStream([
      created,
      added(0, { ...empty, status: 'in_progress' }),
      done(0, empty),
      added(1, { ...broken, status: 'in_progress', arguments: '' }),
      done(1, broken),
      {
        type: 'response.incomplete',
        response: responseOf('incomplete', [empty, broken], cutByLimit),
      },
    ])
    const { events, error } = await replayOnce(body)
    expect(error).toBeUndefined()
    expect(events.map((event) => event.type)).toEqual(['done'])
    const turn = doneTurn(events)
    expect(turn).toMatchObject({ stopReason: 'length', items: { data: [] } })
    expect(turn.toolCalls).toBeUndefined()
    expect(turn.warnings).toEqual([
      expect.stringMatching(/^tool call call_empty \(get_weather\) dropped: /),
      expect.stringMatching(/^tool call call_broken \(get_weather\) dropped: /),
    ])
  })

  it('names a call that began but is missing from the terminal output too', async () => {
    const begun = {
      id: 'fc_gone',
      type: 'function_call',
      status: 'in_progress',
      arguments: '',
      call_id: 'call_gone',
      name: 'get_weather',
    }
    const body = responseStream([
      created,
      added(0, reasoning),
      done(0, reasoning),
      added(1, begun),
      {
        type: 'response.function_call_arguments.delta',
        item_id: 'fc_gone',
        output_index: 1,
        delta: '{"ci',
      },
      { type: 'response.incomplete', response: responseOf('incomplete', [], cutByLimit) },
    ])
    const turn = doneTurn((await replayOnce(body)).events)
    expect(turn.items?.data).toEqual([reasoning])
    expect(turn.warnings).toEqual([
      'tool call call_gone (get_weather) dropped: it was cut off by the output limit (max_output_tokens)',
    ])
  })

  it('leaves no reasoning item orphaned when the only call of a turn was cut: the next request holds neither', async () => {
    const cut = {
      id: 'fc_only',
      type: 'function_call',
      status: 'incomplete',
      arguments: '{"city":"Ber',
      call_id: 'call_only',
      name: 'get_weather',
    }
    const body = responseStream([
      created,
      added(0, reasoning),
      done(0, reasoning),
      added(1, { ...cut, status: 'in_progress', arguments: '' }),
      {
        type: 'response.incomplete',
        response: responseOf('incomplete', [reasoning, cut], cutByLimit),
      },
    ])
    const { adapter, replay } = setup([{ body }])
    const turn = doneTurn((await run(adapter.stream(ask, { tools }))).events)
    // What the provider sent stays (the reasoning item), only the cut call goes.
    expect(turn.items?.data).toEqual([reasoning])
    expect(turn).toMatchObject({ text: '', stopReason: 'length' })
    await run(
      adapter.stream(
        { turns: [...ask.turns, turn, { role: 'user', content: 'Just Oslo then.' }] },
        { tools },
      ),
    )
    const sent = sentBody(replay)
    // A reasoning item with nothing after it is refused ("provided without its required
    // following item"), so the turn, left with only its reasoning, sends nothing; the Responses
    // API takes two user messages in a row.
    expect(inputOf(sent)).toEqual([ask.turns[0], { role: 'user', content: 'Just Oslo then.' }])
    expect(openaiRequestProblems(sent)).toEqual([])
  })

  it('fails as a server error, with no done, when a completed response holds a call it never completed', async () => {
    const call = {
      id: 'fc_lost',
      type: 'function_call',
      status: 'completed',
      arguments: '{"city":"Oslo"}',
      call_id: 'call_lost',
      name: 'get_weather',
    }
    const body = responseStream([
      created,
      added(0, { ...call, status: 'in_progress', arguments: '' }),
      { type: 'response.completed', response: responseOf('completed', [call]) },
    ])
    const { adapter } = setup([{ body }])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([])
    expect(error).toMatchObject({ kind: 'server', provider: 'openai' })
    expect((error as Error).message).toContain('call_lost')
  })

  it('keeps an unfinished call as the provider’s fault in a completed response: a server error naming it', async () => {
    const call = {
      id: 'fc_bad',
      type: 'function_call',
      status: 'completed',
      arguments: '{"city":',
      call_id: 'call_bad',
      name: 'get_weather',
    }
    const body = responseStream([
      created,
      added(0, { ...call, arguments: '' }),
      done(0, call),
      { type: 'response.completed', response: responseOf('completed', [call]) },
    ])
    const { error } = await replayOnce(body)
    expect(error).toMatchObject({ kind: 'server' })
    expect((error as Error).message).toBe(
      "openai: the arguments of function call 'get_weather' are not valid JSON",
    )
  })

  it('replays a turn that was cut short, with its one complete call, as a request the API takes', async () => {
    const first = doneTurn((await replayOnce(fixture('incomplete-cut-function-call.sse'))).events)
    // The app never answered the call (a stop, say): the encoder answers it as not given.
    const stored: AssistantTurn = JSON.parse(JSON.stringify(first)) as AssistantTurn
    const { adapter, replay } = setup([{ body: fixture('reasoning-then-text.sse') }])
    await run(
      adapter.stream({ turns: [...ask.turns, stored, { role: 'user', content: 'Go on.' }] }),
    )
    expect(openaiRequestProblems(sentBody(replay))).toEqual([])
    expect(inputOf(sentBody(replay)).at(-2)).toEqual({
      type: 'function_call_output',
      call_id: 'call_Oslo1',
      output: 'Error: No result was given for this call.',
    })
  })
})
