import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import type { Conversation } from '../../../src/core/conversation.ts'
import { anthropicRequestProblems } from '../../contract/upstreams/anthropic.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { fixture, sentBody, setup } from './harness.ts'

const tools: CallOptions['tools'] = [
  { name: 'get_weather', parameters: { type: 'object' } },
  { name: 'get_time', description: 'Local time', parameters: { type: 'object' } },
]
const conversation: Conversation = {
  system: 'You are a weather assistant.',
  turns: [{ role: 'user', content: 'Weather in Paris?' }],
}

/** The body one call with `options` sends, and the turn's warnings. */
async function send(options: CallOptions, turns: Conversation = conversation) {
  const { adapter, replay } = setup([{ body: fixture('omitted-thinking.sse') }])
  const { events, error } = await run(adapter.stream(turns, options))
  if (error !== undefined) throw error
  return { body: sentBody(replay), warnings: doneTurn(events).warnings ?? [] }
}

/** Every `cache_control` in a body, with where it is, sorted by where. */
function marks(body: unknown): string[] {
  return marksUnder(body, '$').toSorted()
}

function marksUnder(body: unknown, path: string): string[] {
  if (Array.isArray(body)) return body.flatMap((item, i) => marksUnder(item, `${path}[${i}]`))
  if (typeof body !== 'object' || body === null) return []
  return Object.entries(body).flatMap(([key, value]) =>
    key === 'cache_control'
      ? [`${path}: ${JSON.stringify(value)}`]
      : marksUnder(value, `${path}.${key}`),
  )
}

describe('anthropic prompt caching', () => {
  it('marks the system prompt, the last tool and the last message block when asked to cache', async () => {
    const { body, warnings } = await send({ cache: true, tools })
    expect(body['system']).toEqual([
      {
        type: 'text',
        text: 'You are a weather assistant.',
        cache_control: { type: 'ephemeral' },
      },
    ])
    expect(body['tools']).toEqual([
      { name: 'get_weather', input_schema: { type: 'object' } },
      {
        name: 'get_time',
        description: 'Local time',
        input_schema: { type: 'object' },
        cache_control: { type: 'ephemeral' },
      },
    ])
    expect(body['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather in Paris?', cache_control: { type: 'ephemeral' } },
        ],
      },
    ])
    expect(marks(body)).toHaveLength(3)
    expect(warnings).toEqual([])
  })

  it("asks for the one-hour cache when the ttl is '1h', and ignores a cache key without a warning", async () => {
    const { body, warnings } = await send({ cache: { ttl: '1h', key: 'tenant-42' } })
    expect(marks(body)).toEqual([
      '$.messages[0].content[0]: {"type":"ephemeral","ttl":"1h"}',
      '$.system[0]: {"type":"ephemeral","ttl":"1h"}',
    ])
    expect(JSON.stringify(body)).not.toContain('tenant-42')
    expect(warnings).toEqual([])
  })

  it("sends no ttl for '5m', the API's default", async () => {
    const { body } = await send({ cache: { ttl: '5m' } })
    expect(marks(body)).toEqual([
      '$.messages[0].content[0]: {"type":"ephemeral"}',
      '$.system[0]: {"type":"ephemeral"}',
    ])
  })

  it('marks nothing, and sends the system prompt as a string, when caching is off or not asked for', async () => {
    for (const cache of [false, undefined]) {
      const { body } = await send({ cache, tools })
      expect(marks(body)).toEqual([])
      expect(body['system']).toBe('You are a weather assistant.')
      expect(body['messages']).toEqual([{ role: 'user', content: 'Weather in Paris?' }])
    }
  })

  it('marks the last tool result of a tool loop and leaves the replayed turn as it was stored', async () => {
    const first = setup([{ body: fixture('thinking-then-tool.sse') }])
    const turn = doneTurn(
      (await run(first.adapter.stream(conversation, { tools, cache: true }))).events,
    )
    const stored = JSON.stringify(turn.items)
    const loop: Conversation = {
      ...conversation,
      turns: [
        ...conversation.turns,
        turn,
        {
          role: 'tool',
          results: [{ callId: 'toolu_01Weather', name: 'get_weather', output: '18 °C' }],
        },
      ],
    }
    const { body } = await send({ tools, cache: true }, loop)
    expect(marks(body)).toEqual([
      '$.messages[2].content[0]: {"type":"ephemeral"}',
      '$.system[0]: {"type":"ephemeral"}',
      '$.tools[1]: {"type":"ephemeral"}',
    ])
    expect(JSON.stringify(turn.items)).toBe(stored)
    expect(anthropicRequestProblems(body)).toEqual([])
  })

  it('puts the mark of a last assistant message on its last block that can carry one, never on thinking', async () => {
    const first = setup([{ body: fixture('interleaved-thinking.sse') }])
    const turn = doneTurn((await run(first.adapter.stream(conversation))).events)
    const stored = JSON.stringify(turn.items)
    // The turn ends in text: the text block carries the mark.
    const continued = await send(
      { cache: true },
      { ...conversation, turns: [...conversation.turns, turn] },
    )
    expect(marks(continued.body)).toEqual([
      '$.messages[1].content[4]: {"type":"ephemeral"}',
      '$.system[0]: {"type":"ephemeral"}',
    ])
    // A turn that ends in thinking: the block before it carries the mark.
    const endsInThinking = {
      ...turn,
      items: { ...turn.items!, data: turn.items!.data.slice(0, 4) },
    }
    const { body } = await send(
      { cache: true },
      { ...conversation, turns: [...conversation.turns, endsInThinking] },
    )
    expect(marks(body)).toEqual([
      '$.messages[1].content[2]: {"type":"ephemeral"}',
      '$.system[0]: {"type":"ephemeral"}',
    ])
    expect(JSON.stringify(turn.items)).toBe(stored)
  })

  it('marks the last tool the caller added through providerOptions', async () => {
    const { body } = await send({
      cache: true,
      tools,
      providerOptions: {
        anthropic: { tools: [{ type: 'web_search_20250305', name: 'web_search' }] },
      },
    })
    expect(marks(body)).toContain('$.tools[2]: {"type":"ephemeral"}')
    expect(marks(body)).not.toContain('$.tools[1]: {"type":"ephemeral"}')
  })

  it("keeps the caller's own marks, and places ours only after longer-lived ones", async () => {
    // The caller caches a long manual for an hour; ours last five minutes, so none may come
    // before it (tools are read first), and the system prompt is marked already.
    const manual = {
      type: 'text',
      text: 'A long manual.',
      cache_control: { type: 'ephemeral', ttl: '1h' },
    }
    const { body, warnings } = await send(
      { cache: true, tools, providerOptions: { anthropic: { system: [manual] } } },
      { turns: conversation.turns },
    )
    expect(marks(body)).toEqual([
      '$.messages[0].content[0]: {"type":"ephemeral"}',
      '$.system[0]: {"type":"ephemeral","ttl":"1h"}',
    ])
    expect(warnings).toEqual([
      'cache breakpoint on the last tool left out: providerOptions mark 1 block, and Anthropic takes 4, longer-lived first',
    ])
    expect(anthropicRequestProblems(body)).toEqual([])
  })

  it('adds no mark past the four the API takes, counting those the caller added', async () => {
    const marked = (name: string) => ({
      type: 'custom',
      name,
      input_schema: { type: 'object' },
      cache_control: { type: 'ephemeral' },
    })
    const { body, warnings } = await send({
      cache: { ttl: '1h' },
      providerOptions: { anthropic: { tools: ['a', 'b', 'c', 'd'].map(marked) } },
    })
    expect(marks(body)).toEqual(
      ['a', 'b', 'c', 'd'].map((_, i) => `$.tools[${i}]: {"type":"ephemeral"}`),
    )
    // The last tool is the caller's, marked already: only the other two are left out.
    expect(warnings).toEqual([
      'cache breakpoint on the last message, system prompt left out: providerOptions mark 4 blocks, and Anthropic takes 4, longer-lived first',
    ])
    expect(body['system']).toBe('You are a weather assistant.')
    expect(anthropicRequestProblems(body)).toEqual([])
  })

  it('reports what the cache read and wrote as part of the input tokens', async () => {
    const { adapter } = setup([{ body: fixture('thinking-then-tool.sse') }])
    const turn = doneTurn((await run(adapter.stream(conversation, { cache: true }))).events)
    // input_tokens 120 + cache_read_input_tokens 50 + cache_creation_input_tokens 30.
    expect(turn.usage).toMatchObject({
      inputTokens: 200,
      cacheReadTokens: 50,
      cacheWriteTokens: 30,
    })
  })
})
