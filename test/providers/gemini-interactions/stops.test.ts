import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import {
  atCuts,
  collect,
  completed,
  doneTurn,
  eventsAtCuts,
  failure,
  fixture,
  interactionStream,
  opened,
  sentBody,
  setup,
  step,
} from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Schreib mir eine Notiz.' }] }
const tools = { tools: [{ name: 'save_note', parameters: { type: 'object' } }] }

describe('gemini interactions stops and failures', () => {
  it('ends an incomplete answer as length and drops the call cut off inside its arguments', async () => {
    const events = await eventsAtCuts(fixture('incomplete-cut-call.sse'), ask, tools)
    expect(events.some((e) => e.type === 'tool-call')).toBe(false)
    const turn = doneTurn(events)
    expect(turn.text).toBe('Ich schreibe die Notiz: ')
    expect(turn.stopReason).toBe('length')
    expect(turn.stopDetails).toEqual({ category: 'incomplete' })
    expect(turn.toolCalls).toBeUndefined()
    expect(turn.warnings).toEqual([
      'tool call save_note dropped: the answer stopped (incomplete) before its arguments were complete',
    ])
    // The cut call is not in the items: a replay never sends half a call.
    expect(JSON.stringify(turn.items?.data)).not.toContain('save_note')
  })

  it('closes a call whose step never stopped when the model ended its turn', async () => {
    const body = interactionStream([
      ...opened,
      {
        event_type: 'step.start',
        index: 0,
        step: { type: 'function_call', id: 'c1', name: 'save_note', arguments: {} },
      },
      {
        event_type: 'step.delta',
        index: 0,
        delta: { type: 'arguments_delta', arguments: '{"text":"Milch"}' },
      },
      completed('requires_action'),
    ])
    const events = await eventsAtCuts(body, ask, tools)
    expect(events.at(-2)).toEqual({
      type: 'tool-call',
      call: { id: 'c1', name: 'save_note', input: { text: 'Milch' } },
    })
    expect(doneTurn(events).stopReason).toBe('tool-calls')
  })

  it('keeps the continuation token after the steps and resumes with it through providerOptions', async () => {
    const events = await eventsAtCuts(fixture('requires-continuation.sse'), ask)
    const turn = doneTurn(events)
    expect(turn.text).toBe('Es war einmal ein Drache, der nicht schlafen konnte. ')
    expect(turn.stopReason).toBe('length')
    expect(turn.stopDetails).toEqual({ category: 'requires_continuation' })
    // The completed event's token is the last one.
    expect(turn.items?.data.at(-1)).toEqual({ continuation_token: 'Q0hFQ0tQT0lOVC0yNTY=' })

    const { adapter, replay } = setup([{ body: fixture('tool-result-answer.sse') }])
    const resume = { 'gemini-interactions': { continuation_token: 'Q0hFQ0tQT0lOVC0yNTY=' } }
    await collect(adapter.stream(ask, { providerOptions: resume }))
    const body = sentBody(replay)
    expect(body['continuation_token']).toBe('Q0hFQ0tQT0lOVC0yNTY=')
    expect(body['input']).toEqual([
      { type: 'user_input', content: [{ type: 'text', text: 'Schreib mir eine Notiz.' }] },
    ])
  })

  it('fails with server and no done when the interaction failed, naming the step error', async () => {
    const { events, error } = await atCuts(fixture('failed.sse'), ask)
    expect(events).toEqual([{ type: 'text', text: 'Moment, ' }])
    expect(error).toMatchObject({
      kind: 'server',
      retryable: true,
      provider: 'gemini-interactions',
    })
    expect((error as Error).message).toBe(
      'gemini-interactions: the interaction failed: Internal error while generating the answer.',
    )
  })

  it('fails with invalid-output when a finished call has arguments that are not JSON', async () => {
    const { events, error } = await atCuts(fixture('malformed-call.sse'), ask, tools)
    expect(events).toEqual([])
    expect(error).toMatchObject({ kind: 'invalid-output', retryable: false })
    expect((error as Error).message).toContain('get_weather has arguments that are not JSON')
  })

  it('fails with the kind of an error event after the text before it, with no done', async () => {
    const { events, error } = await atCuts(fixture('mid-stream-error.sse'), ask)
    expect(events).toEqual([{ type: 'text', text: 'Der Anfang der Antwort …' }])
    expect(error).toMatchObject({ kind: 'overloaded', status: 503, retryable: true })
    expect((error as Error).message).toContain('The model is overloaded.')
  })

  it('fails with network when the body ends before interaction.completed', async () => {
    const body = interactionStream([
      ...opened,
      ...step(0, { type: 'model_output' }, { type: 'text', text: 'Halb' }),
    ])
    const { adapter } = setup([{ body }])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([{ type: 'text', text: 'Halb' }])
    expect(error).toMatchObject({ kind: 'network' })
    expect((error as Error).message).toBe(
      'gemini-interactions: the stream ended before the interaction completed',
    )
  })

  it('says other, with the status, for a status that is not an end of the model’s own', async () => {
    const body = interactionStream([
      ...opened,
      ...step(0, { type: 'model_output' }, { type: 'text', text: 'Abgebrochen.' }),
      completed('cancelled'),
    ])
    const turn = doneTurn(await eventsAtCuts(body, ask))
    expect(turn.stopReason).toBe('other')
    expect(turn.stopDetails).toEqual({ category: 'cancelled' })
  })

  it('reads the steps of a completion that carries them instead of step events', async () => {
    const body = interactionStream([
      ...opened,
      completed('completed', {
        steps: [
          {
            type: 'thought',
            signature: 'U0lHLWlubGluZQ==',
            summary: [{ type: 'text', text: 'Kurz.' }],
          },
          { type: 'model_output', content: [{ type: 'text', text: 'Erledigt.' }] },
        ],
      }),
    ])
    const events = await eventsAtCuts(body, ask)
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: 'Kurz.' },
      { type: 'text', text: 'Erledigt.' },
    ])
    expect(doneTurn(events).items?.data).toHaveLength(2)
  })
})
