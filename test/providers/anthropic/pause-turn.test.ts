import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import type { Conversation } from '../../../src/core/conversation.ts'
import { anthropicRequestProblems } from '../../contract/upstreams/anthropic.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { anthropic } from '../../../src/providers/anthropic/index.ts'
import { fixture, sentBody, setup } from './harness.ts'

const search: CallOptions = {
  providerOptions: {
    anthropic: { tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] },
  },
}

const CONTAINER = { id: 'container_011PausedFixture', expires_at: '2026-03-01T12:00:00Z' }

/** The paused turn's content blocks, as the API sent them. */
const PAUSED_BLOCKS = [
  { type: 'text', text: 'Je cherche → ' },
  {
    type: 'server_tool_use',
    id: 'srvtoolu_01First',
    name: 'web_search',
    input: { query: 'Oslo vær' },
    caller: { type: 'direct' },
  },
  {
    type: 'web_search_tool_result',
    tool_use_id: 'srvtoolu_01First',
    caller: { type: 'direct' },
    content: [
      {
        type: 'web_search_result',
        title: 'Været i Oslo',
        url: 'https://example.com/oslo',
        encrypted_content: 'EqgfCioIPausedSearchFixture==',
        page_age: '2 hours ago',
      },
    ],
  },
  {
    type: 'server_tool_use',
    id: 'srvtoolu_02Second',
    name: 'web_search',
    input: { query: 'Oslo forecast 🌨' },
    caller: { type: 'direct' },
  },
]

/** The blocks of `pause-continued.sse`, the continuation of the paused turn. */
const CONTINUED_BLOCKS = [
  {
    type: 'web_search_tool_result',
    tool_use_id: 'srvtoolu_02Second',
    caller: { type: 'direct' },
    content: [
      {
        type: 'web_search_result',
        title: 'Oslo: 10-day forecast',
        url: 'https://example.com/oslo-forecast',
        encrypted_content: 'EqgfCioIContinuedSearchFixture==',
        page_age: '1 hour ago',
      },
    ],
  },
  { type: 'text', text: 'Snow showers, −3 °C; clearing by the weekend.' },
]

/** The adapter continuing paused turns as it does by default. */
const continuing = { pauseContinuations: undefined }

describe('anthropic: a paused turn continued in the same stream', () => {
  it('sends the turn so far back with its container, streams the rest, and ends with the whole turn', async () => {
    const { adapter, replay } = setup(
      [{ body: fixture('pause-turn.sse') }, { body: fixture('pause-continued.sse') }],
      continuing,
    )
    const conversation: Conversation = {
      system: 'Answer in English.',
      turns: [{ role: 'user', content: 'Weather in Oslo?' }],
    }
    const { events, error } = await run(adapter.stream(conversation, search))
    expect(error).toBeUndefined()
    expect(events.slice(0, -1)).toEqual([
      { type: 'text', text: 'Je cherche → ' },
      { type: 'text', text: 'Snow showers, −3 °C; ' },
      { type: 'text', text: 'clearing by the weekend.' },
    ])
    expect(replay.requests).toHaveLength(2)
    const next = sentBody(replay, 1)
    expect(next['container']).toBe('container_011PausedFixture')
    expect(next['system']).toEqual(sentBody(replay, 0)['system'])
    expect(next['messages']).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: PAUSED_BLOCKS },
    ])
    expect(anthropicRequestProblems(next)).toEqual([])

    const turn = doneTurn(events)
    expect(turn.text).toBe('Je cherche → Snow showers, −3 °C; clearing by the weekend.')
    expect(turn.stopReason).toBe('stop')
    expect(turn.stopDetails).toBeUndefined()
    expect(turn.warnings).toBeUndefined()
    expect(turn.items?.data).toEqual([
      ...PAUSED_BLOCKS,
      ...CONTINUED_BLOCKS,
      { type: 'thinkwire_container', container: CONTAINER },
    ])
    expect(turn.sources).toEqual([
      { url: 'https://example.com/oslo', title: 'Været i Oslo' },
      { url: 'https://example.com/oslo-forecast', title: 'Oslo: 10-day forecast' },
    ])
    // Both requests are paid for: Sonnet 5, 4,040 × $2 + 118 × $10 = 9,260 micro-dollars.
    expect(turn.usage).toEqual({
      inputTokens: 1830 + 2210,
      outputTokens: 77 + 41,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cost: 0.00926,
    })

    // The whole turn replays as the one assistant message the API built, its container not named.
    conversation.turns.push(turn, { role: 'user', content: 'Thanks!' })
    const after = setup([{ body: fixture('server-tool.sse') }], continuing)
    await run(after.adapter.stream(conversation, search))
    const third = sentBody(after.replay)
    expect(third['messages']).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: [...PAUSED_BLOCKS, ...CONTINUED_BLOCKS] },
      { role: 'user', content: 'Thanks!' },
    ])
    expect(third).not.toHaveProperty('container')
    expect(anthropicRequestProblems(third)).toEqual([])
  })

  it('continues at most pauseContinuations times, then ends paused with every message kept', async () => {
    const { adapter, replay } = setup(
      [{ body: fixture('pause-turn.sse') }, { body: fixture('pause-turn.sse') }],
      { pauseContinuations: 1 },
    )
    const { events, error } = await run(
      adapter.stream({ turns: [{ role: 'user', content: 'Weather in Oslo?' }] }, search),
    )
    expect(error).toBeUndefined()
    expect(replay.requests).toHaveLength(2)
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('other')
    expect(turn.stopDetails).toEqual({ category: 'pause_turn' })
    expect(turn.items?.data).toEqual([
      ...PAUSED_BLOCKS,
      ...PAUSED_BLOCKS,
      { type: 'thinkwire_container', container: CONTAINER },
    ])
    expect(turn.usage).toMatchObject({ inputTokens: 3660, outputTokens: 154 })
  })

  it('fails the stream, with no done, when a continuation fails', async () => {
    const { adapter, replay } = setup(
      [
        { body: fixture('pause-turn.sse') },
        {
          status: 529,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            type: 'error',
            error: { type: 'overloaded_error', message: 'Overloaded' },
          }),
        },
      ],
      continuing,
    )
    const { events, error } = await run(
      adapter.stream({ turns: [{ role: 'user', content: 'Weather in Oslo?' }] }, search),
    )
    expect(replay.requests).toHaveLength(2)
    expect(events).toEqual([{ type: 'text', text: 'Je cherche → ' }])
    expect(error).toMatchObject({ kind: 'overloaded', provider: 'anthropic' })
  })

  it('refuses a pauseContinuations that is not a whole number of 0 or more, by name', () => {
    for (const pauseContinuations of [-1, 1.5, Number.NaN]) {
      expect(() =>
        anthropic({
          apiKey: 'sk-ant-test-key-0123456789',
          model: 'claude-sonnet-5',
          pauseContinuations,
        }),
      ).toThrow(/pauseContinuations must be a whole number/)
    }
  })
})

describe('anthropic: a turn the API paused (pause_turn)', () => {
  it("ends as stop reason 'other' with category pause_turn, every block and the container kept", async () => {
    const { adapter } = setup([{ body: fixture('pause-turn.sse') }])
    const { events, error } = await run(
      adapter.stream({ turns: [{ role: 'user', content: 'Weather in Oslo?' }] }, search),
    )
    expect(error).toBeUndefined()
    expect(events.slice(0, -1)).toEqual([{ type: 'text', text: 'Je cherche → ' }])
    const turn = doneTurn(events)
    expect(turn.stopReason).toBe('other')
    expect(turn.stopDetails).toEqual({ category: 'pause_turn' })
    // Server tools are the API's own: they are not calls for the caller to run.
    expect(turn.toolCalls).toBeUndefined()
    expect(turn.warnings).toBeUndefined()
    expect(turn.items?.data).toEqual([
      ...PAUSED_BLOCKS,
      { type: 'thinkwire_container', container: CONTAINER },
    ])
    expect(turn.usage).toEqual({
      inputTokens: 1830,
      outputTokens: 77,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      // Sonnet 5: 1,830 × $2 + 77 × $10 = 4,430 micro-dollars.
      cost: 0.00443,
    })
  })

  it('is continued by calling again with the same conversation: the paused turn goes last, whole, with its container', async () => {
    const { adapter, replay } = setup([
      { body: fixture('pause-turn.sse') },
      { body: fixture('pause-continued.sse') },
    ])
    const conversation: Conversation = {
      system: 'Answer in English.',
      turns: [{ role: 'user', content: 'Weather in Oslo?' }],
    }
    const paused = doneTurn((await run(adapter.stream(conversation, search))).events)
    conversation.turns.push(paused)
    const { events, error } = await run(adapter.stream(conversation, search))
    expect(error).toBeUndefined()
    const next = sentBody(replay, 1)
    expect(next['container']).toBe('container_011PausedFixture')
    expect(next['messages']).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: PAUSED_BLOCKS },
    ])
    // Byte for byte as stored, and the items record of the container is not sent as a block.
    const messages = next['messages'] as { content: unknown }[]
    expect(JSON.stringify(messages[1]!.content)).toBe(
      JSON.stringify(paused.items!.data.slice(0, -1)),
    )
    expect(JSON.stringify(next['messages'])).not.toContain('thinkwire_container')
    expect(next['tools']).toEqual([
      { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
    ])
    expect(anthropicRequestProblems(next)).toEqual([])

    // The continuation is a turn of its own, which starts with the result of the paused call;
    // both go back as one assistant message.
    const continuation = doneTurn(events)
    expect(continuation.stopReason).toBe('stop')
    expect(continuation.text).toBe('Snow showers, −3 °C; clearing by the weekend.')
    expect(continuation.items?.data[0]).toMatchObject({ tool_use_id: 'srvtoolu_02Second' })
    conversation.turns.push(continuation, { role: 'user', content: 'Thanks!' })
    await run(adapter.stream(conversation, search))
    const third = sentBody(replay, 2)
    expect(third['messages']).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      // The continuation's container is a record of its items, not a block.
      { role: 'assistant', content: [...PAUSED_BLOCKS, ...continuation.items!.data.slice(0, -1)] },
      { role: 'user', content: 'Thanks!' },
    ])
    // The paused turn is no longer being continued: its container is not named again.
    expect(third).not.toHaveProperty('container')
    expect(anthropicRequestProblems(third)).toEqual([])
  })

  it('goes without the call it ended with when a user message follows it instead of its continuation', async () => {
    const { adapter, replay } = setup([
      { body: fixture('pause-turn.sse') },
      { body: fixture('server-tool.sse') },
    ])
    const conversation: Conversation = { turns: [{ role: 'user', content: 'Weather in Oslo?' }] }
    const paused = doneTurn((await run(adapter.stream(conversation, search))).events)
    conversation.turns.push(paused, { role: 'user', content: 'Never mind: Paris?' })
    const { events, error } = await run(adapter.stream(conversation, search))
    expect(error).toBeUndefined()
    const next = sentBody(replay, 1)
    // Sent as stored, the unanswered search would be refused: "tool use ... was found without a
    // corresponding web_search_tool_result block".
    expect(next['messages']).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: PAUSED_BLOCKS.slice(0, -1) },
      { role: 'user', content: 'Never mind: Paris?' },
    ])
    expect(next).not.toHaveProperty('container')
    expect(anthropicRequestProblems(next)).toEqual([])
    expect(doneTurn(events).warnings).toEqual([
      'web_search call left out: a paused turn that was not continued ended with it, without its result',
    ])
    // The stored turn is unchanged: it still continues as it is, were it last again.
    expect(paused.items?.data).toContainEqual(PAUSED_BLOCKS.at(-1))
  })

  it('drops an assistant message left empty and merges the user messages around it', async () => {
    const { adapter, replay } = setup([
      { body: fixture('pause-turn.sse') },
      { body: fixture('server-tool.sse') },
    ])
    const paused = doneTurn(
      (
        await run(
          adapter.stream({ turns: [{ role: 'user', content: 'Weather in Oslo?' }] }, search),
        )
      ).events,
    )
    // A paused turn that holds nothing but its unanswered call.
    const bare = { ...paused, text: '', items: { ...paused.items!, data: [PAUSED_BLOCKS.at(-1)] } }
    await run(
      adapter.stream(
        {
          turns: [
            { role: 'user', content: 'Weather in Oslo?' },
            bare,
            { role: 'user', content: 'Paris?' },
          ],
        },
        search,
      ),
    )
    const next = sentBody(replay, 1)
    expect(next['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather in Oslo?' },
          { type: 'text', text: 'Paris?' },
        ],
      },
    ])
    expect(anthropicRequestProblems(next)).toEqual([])
  })

  it('names no container when the turn being continued came from another model', async () => {
    const { adapter, replay } = setup([{ body: fixture('pause-turn.sse') }])
    const paused = doneTurn(
      (
        await run(
          adapter.stream({ turns: [{ role: 'user', content: 'Weather in Oslo?' }] }, search),
        )
      ).events,
    )
    const other = setup([{ body: fixture('answer-after-tool.sse') }], { model: 'claude-opus-4-6' })
    await run(
      other.adapter.stream({ turns: [{ role: 'user', content: 'Weather in Oslo?' }, paused] }),
    )
    const body = sentBody(other.replay)
    expect(body).not.toHaveProperty('container')
    expect(body['messages']).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: [{ type: 'text', text: 'Je cherche → ' }] },
    ])
    expect(replay.requests).toHaveLength(1)
  })
})
