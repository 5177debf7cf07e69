import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Conversation } from '../../../src/core/conversation.ts'
import { doneTurn, failure, run } from '../../helpers/stream.ts'
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

const ask: Conversation = { turns: [{ role: 'user', content: 'Which is larger, 9.11 or 9.8?' }] }
const next = { role: 'user', content: 'And 9.08?' } as const

const UNVERIFIED = 'The encrypted content gAAA...Q== could not be verified.'
const WARNING =
  'encrypted items of earlier turns left out (1: reasoning): the API could not verify them (invalid_encrypted_content)'

/** The answer the second request gets, and what it streams. */
const answer = fixture('reasoning-then-text.sse')
const answered = [
  { type: 'thinking', text: '**Plan** → compare' },
  { type: 'thinking', text: ' 9.11 and 9.8 é' },
  { type: 'thinking', text: '\n\nThen answer 🙂' },
  { type: 'text', text: '9.8 is larger → ' },
  { type: 'text', text: 'because 0.80 > 0.11 ✅' },
]

/** The events of a response the API accepted, up to a reasoning item that has streamed nothing. */
const started = [
  { type: 'response.created', response: responseOf('in_progress', []) },
  { type: 'response.in_progress', response: responseOf('in_progress', []) },
  {
    type: 'response.output_item.added',
    output_index: 0,
    item: { id: 'rs_refused', type: 'reasoning', summary: [] },
  },
]

/** The three ways the stream says it could not verify the encrypted items. */
const refusals = {
  'an error event': {
    type: 'error',
    code: 'invalid_encrypted_content',
    message: UNVERIFIED,
    param: null,
  },
  'an error event in its nested form': {
    type: 'error',
    error: {
      type: 'invalid_request_error',
      code: 'invalid_encrypted_content',
      message: UNVERIFIED,
      param: null,
    },
  },
  'a failed response': {
    type: 'response.failed',
    response: responseOf('in_progress', [], {
      status: 'failed',
      usage: null,
      error: { code: 'invalid_encrypted_content', message: UNVERIFIED },
    }),
  },
}

/** A turn of this model that carries an encrypted reasoning item, as the adapter made it. */
async function encryptedTurn(): Promise<AssistantTurn> {
  const { adapter } = setup([{ body: answer }])
  const turn = doneTurn((await run(adapter.stream(ask))).events)
  expect(JSON.stringify(turn.items?.data)).toContain('encrypted_content')
  return turn
}

describe('openai: a refusal of encrypted items inside the stream', () => {
  it.each(Object.entries(refusals))(
    'asks once more without the encrypted items when the stream refuses them with %s before any output',
    async (_, refusal) => {
      const turn = await encryptedTurn()
      const refused = responseStream([...started, refusal])
      const { adapter, replay } = setup([
        { body: refused, splitAt: awkwardCuts(refused) },
        { body: answer, splitAt: awkwardCuts(answer) },
      ])
      const { events, error } = await run(adapter.stream({ turns: [...ask.turns, turn, next] }))
      expect(error).toBeUndefined()
      expect(events.slice(0, -1)).toEqual(answered)
      const done = doneTurn(events)
      expect(done).toMatchObject({
        text: '9.8 is larger → because 0.80 > 0.11 ✅',
        stopReason: 'stop',
      })
      expect(done.warnings).toEqual([WARNING])

      expect(replay.requests).toHaveLength(2)
      const [reasoning, message] = turn.items!.data as Record<string, unknown>[]
      expect(inputOf(sentBody(replay, 0))).toEqual([ask.turns[0], reasoning, message, next])
      // The message its reasoning made goes without its id, now that the reasoning is left out.
      const { id: _id, ...unbound } = message!
      const retried = sentBody(replay, 1)
      expect(inputOf(retried)).toEqual([ask.turns[0], unbound, next])
      expect(JSON.stringify(retried)).not.toContain('gAAAAABp')
      const { input: _first, ...rest } = sentBody(replay, 0)
      const { input: _second, ...same } = retried
      expect(same).toEqual(rest)
      expect(openaiRequestProblems(retried)).toEqual([])
    },
  )

  it('fails as the stream did when the refusal comes after output reached the caller', async () => {
    const turn = await encryptedTurn()
    const late = responseStream([
      ...started,
      {
        type: 'response.reasoning_summary_text.delta',
        item_id: 'rs_refused',
        output_index: 0,
        summary_index: 0,
        delta: 'Compare 9.11 → 9.8',
      },
      refusals['an error event'],
    ])
    const { adapter, replay } = setup([
      { body: late, splitAt: awkwardCuts(late) },
      { body: answer },
    ])
    const { events, error } = await failure(adapter.stream({ turns: [...ask.turns, turn, next] }))
    expect(events).toEqual([{ type: 'thinking', text: 'Compare 9.11 → 9.8' }])
    expect(error).toMatchObject({ kind: 'invalid-request', provider: 'openai' })
    expect((error as Error).message).toContain('invalid_encrypted_content')
    expect(replay.requests).toHaveLength(1)
  })

  it('recovers once per call, whether the API refused first with an HTTP 400 or in the stream', async () => {
    const turn = await encryptedTurn()
    const conversation = { turns: [...ask.turns, turn, next] }
    const refused = responseStream([...started, refusals['a failed response']])
    const http = {
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: errorBody('invalid_encrypted_content', UNVERIFIED),
    }
    for (const [first, second] of [
      [{ body: refused }, { body: refused }],
      [http, { body: refused }],
      [{ body: refused }, http],
    ]) {
      const { adapter, replay } = setup([first!, second!, { body: answer }])
      const { events, error } = await failure(adapter.stream(conversation))
      expect(events).toEqual([])
      expect(error).toMatchObject({ kind: 'invalid-request', provider: 'openai' })
      expect(replay.requests).toHaveLength(2)
    }
  })

  it('fails at once when the stream refuses encrypted items a call did not send', async () => {
    const { adapter, replay } = setup([
      { body: responseStream([...started, refusals['an error event']]) },
      { body: answer },
    ])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([])
    expect(error).toMatchObject({ kind: 'invalid-request', provider: 'openai' })
    expect(replay.requests).toHaveLength(1)
  })
})
