import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import type { ToolSpec } from '../src/core/adapter.ts'
import type { AssistantTurn, Conversation } from '../src/core/conversation.ts'
import { createRegistry } from '../src/core/registry.ts'
import { runTools } from '../src/core/tools.ts'
import { createMock, mock, mockModelIds } from '../src/providers/mock/index.ts'
import type { Event } from '../src/core/events.ts'
import { collect } from './helpers/stream.ts'

describe('mock', () => {
  it('answers any question with thinking and a quote of the question when it has no script', async () => {
    const events = await collect(
      mock().stream({ turns: [{ role: 'user', content: 'Hello there' }] }),
    )
    const done = events.at(-1)
    expect(done?.type).toBe('done')
    if (done?.type !== 'done') return
    expect(done.turn.text).toContain('"Hello there"')
    expect(done.turn.thinking).toMatch(/11 characters/)
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(1)
  })

  it('streams in chunks of chunkSize characters', async () => {
    const events = await collect(
      mock({ chunkSize: 3, script: [{ text: 'abcdefgh' }] }).stream({ turns: [] }),
    )
    expect(
      events.filter((e) => e.type === 'text').map((e) => (e.type === 'text' ? e.text : '')),
    ).toEqual(['abc', 'def', 'gh'])
  })

  it('fails before the first event with the scripted kind, status and retry-after', async () => {
    const adapter = mock({
      script: [{ text: 'x', fail: { kind: 'rate-limit', status: 429, retryAfterMs: 1500 } }],
    })
    await expect(collect(adapter.stream({ turns: [] }))).rejects.toMatchObject({
      kind: 'rate-limit',
      retryable: true,
      status: 429,
      retryAfterMs: 1500,
      provider: 'mock',
    })
  })

  it('plays the script in order and repeats the last answer', async () => {
    const adapter = mock({ script: [{ text: 'one' }, { text: 'two' }] })
    const texts = []
    for (let i = 0; i < 3; i++) {
      const events = await collect(adapter.stream({ turns: [] }))
      const done = events.at(-1)
      texts.push(done?.type === 'done' ? done.turn.text : '')
    }
    expect(texts).toEqual(['one', 'two', 'two'])
  })

  it('emits no thinking when thinking is off and tags the items with the mode', async () => {
    const events = await collect(
      mock({ script: [{ thinking: 'hmm', text: 'ok' }] }).stream(
        { turns: [] },
        { thinking: 'off' },
      ),
    )
    expect(events.some((e) => e.type === 'thinking')).toBe(false)
    const done = events.at(-1)
    expect(done?.type === 'done' && done.turn.items?.thinkingMode).toBe('off')
  })

  it('fails with a timeout when it stalls longer than idleTimeoutMs', async () => {
    const adapter = mock({ script: [{ text: 'abc', stallAfterEvents: 1 }], chunkSize: 1 })
    const events: Event[] = []
    await expect(
      (async () => {
        for await (const e of adapter.stream({ turns: [] }, { idleTimeoutMs: 30 })) events.push(e)
      })(),
    ).rejects.toMatchObject({ kind: 'timeout', retryable: true })
    expect(events).toHaveLength(1)
    expect(adapter.calls[0]?.signal.aborted).toBe(true)
  })

  it('reports the echo row as the capabilities of every mock model', () => {
    const echo = {
      thinking: { mode: 'effort', levels: ['low', 'medium', 'high'], canDisable: true },
      tools: true,
      json: true,
      contextTokens: 200_000,
      maxOutputTokens: 64_000,
    }
    expect(mock().capabilities).toEqual(echo)
    expect(mock({ model: 'anything-else' }).capabilities).toEqual(echo)
  })

  it('makes adapters of any model from one set of options, and lists the mock models', async () => {
    const factory = createMock({ chunkSize: 2, script: [{ text: 'abcd' }] })
    expect(factory.models).toEqual(mockModelIds)
    const adapter = factory('parrot')
    expect(adapter).toMatchObject({ provider: 'mock', model: 'parrot' })
    const events = await collect(adapter.stream({ turns: [{ role: 'user', content: 'x' }] }))
    expect(events.filter((e) => e.type === 'text')).toEqual([
      { type: 'text', text: 'ab' },
      { type: 'text', text: 'cd' },
    ])
    expect(adapter.calls).toHaveLength(1)
    expect(adapter.calls[0]?.request).toEqual([{ role: 'user', content: 'x' }])
    const registry = createRegistry({ mock: factory })
    expect(registry.models()).toEqual([
      { id: 'mock/echo', provider: 'mock', model: 'echo', ...mock().capabilities },
    ])
  })

  it('waits delayMs before each delta', async () => {
    vi.useFakeTimers()
    try {
      const adapter = mock({ delayMs: 50, chunkSize: 2, script: [{ text: 'abcd' }] })
      const iterator = adapter.stream({ turns: [] })[Symbol.asyncIterator]()
      let settled = false
      const first = iterator.next().finally(() => (settled = true))
      await vi.advanceTimersByTimeAsync(49)
      expect(settled).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      expect(await first).toEqual({ done: false, value: { type: 'text', text: 'ab' } })
      await iterator.return?.()
    } finally {
      vi.useRealTimers()
    }
  })
  it('yields each delta only once pace lets it go, and waits for no clock then', async () => {
    vi.useFakeTimers()
    try {
      const waiting: { index: number; delta: unknown; go(): void }[] = []
      const adapter = mock({
        delayMs: 60_000,
        script: [{ thinking: 'ab', thinkingMs: 60_000, text: 'cd', chunkSize: 1 }],
        pace: ({ index, delta, call }) => {
          expect(call).toBe(adapter.calls[0])
          return new Promise((go) => waiting.push({ index, delta, go }))
        },
      })
      const events: Event[] = []
      const done = (async () => {
        for await (const event of adapter.stream({ turns: [] })) events.push(event)
      })()
      await vi.advanceTimersByTimeAsync(0)
      // The first delta waits for its step, not for any timer.
      expect(waiting.map(({ index, delta }) => ({ index, delta }))).toEqual([
        { index: 0, delta: { type: 'thinking', text: 'a' } },
      ])
      expect(events).toEqual([])
      waiting[0]!.go()
      await vi.advanceTimersByTimeAsync(0)
      expect(events).toEqual([{ type: 'thinking', text: 'a' }])
      expect(waiting.map(({ index }) => index)).toEqual([0, 1])
      for (let i = 1; i < 4; i++) {
        waiting[i]!.go()
        await vi.advanceTimersByTimeAsync(0)
      }
      await done
      expect(waiting.map(({ delta }) => delta)).toEqual([
        { type: 'thinking', text: 'a' },
        { type: 'thinking', text: 'b' },
        { type: 'text', text: 'c' },
        { type: 'text', text: 'd' },
      ])
      expect(events.map((event) => event.type)).toEqual([
        'thinking',
        'thinking',
        'text',
        'text',
        'done',
      ])
    } finally {
      vi.useRealTimers()
    }
  })

  it('ends as aborted when the caller aborts while pace holds a delta that it never lets go', async () => {
    const controller = new AbortController()
    let held = () => {}
    const holding = new Promise<void>((resolve) => (held = resolve))
    const adapter = mock({
      script: [{ text: 'abcd' }],
      chunkSize: 1,
      pace: ({ index }) => (index === 0 ? Promise.resolve() : (held(), new Promise(() => {}))),
    })
    const events: Event[] = []
    const run = (async () => {
      const options = { signal: controller.signal }
      for await (const event of adapter.stream({ turns: [] }, options)) events.push(event)
    })()
    await holding
    controller.abort()
    await expect(run).rejects.toMatchObject({ kind: 'aborted' })
    expect(events).toEqual([{ type: 'text', text: 'a' }])
    expect(adapter.calls[0]?.signal.aborted).toBe(true)
  })

  it('fails the call with what pace rejected with, after the deltas it let go', async () => {
    const adapter = mock({
      script: [{ text: 'abc' }],
      chunkSize: 1,
      pace: ({ index }) =>
        index < 2 ? Promise.resolve() : Promise.reject(new Error('the gate is gone')),
    })
    const events: Event[] = []
    await expect(
      (async () => {
        for await (const event of adapter.stream({ turns: [] })) events.push(event)
      })(),
    ).rejects.toThrow('the gate is gone')
    expect(events.map((event) => (event.type === 'text' ? event.text : event.type))).toEqual([
      'a',
      'b',
    ])
  })

  it('spreads the thinking over thinkingMs, then streams the answer in its own chunk size', async () => {
    vi.useFakeTimers()
    try {
      const adapter = mock({
        script: [{ thinking: 'abcdefgh', thinkingMs: 1000, chunkSize: 4, text: 'answer' }],
      })
      const events: Event[] = []
      const done = (async () => {
        for await (const event of adapter.stream({ turns: [] })) events.push(event)
      })()
      // Two thinking deltas, 500 ms apart; no answer before the thinking time is over.
      await vi.advanceTimersByTimeAsync(999)
      expect(events).toEqual([{ type: 'thinking', text: 'abcd' }])
      await vi.advanceTimersByTimeAsync(1)
      await done
      expect(events.slice(0, 3)).toEqual([
        { type: 'thinking', text: 'abcd' },
        { type: 'thinking', text: 'efgh' },
        { type: 'text', text: 'answ' },
      ])
    } finally {
      vi.useRealTimers()
    }
  })

  it('answers a question about markdown or the demo with thinking and a markdown tour', async () => {
    vi.useFakeTimers()
    try {
      const stream = mock().stream({
        turns: [{ role: 'user', content: 'Show me a Markdown demo' }],
      })
      const result = collect(stream)
      await vi.advanceTimersByTimeAsync(1500)
      const events = await result
      const done = events.at(-1)
      if (done?.type !== 'done') throw new Error('no done event')
      expect(done.turn.thinking?.length).toBeGreaterThan(100)
      expect(done.turn.text).toMatch(/^1\. \*\*Thinking\*\*/m)
      expect(done.turn.text).toContain('```ts\n')
      expect(done.turn.text).toMatch(/^\| `text` \| the answer \|$/m)
      expect(done.turn.text).not.toContain('You said')
      // Other questions keep the echo.
      const echo = await collect(mock().stream({ turns: [{ role: 'user', content: 'demos' }] }))
      expect(echo.at(-1)).toMatchObject({
        turn: { text: expect.stringContaining('You said: "demos"') },
      })
    } finally {
      vi.useRealTimers()
    }
  })
})

const clockTool: ToolSpec = {
  name: 'clock',
  description: 'The current time',
  parameters: { type: 'object', properties: {} },
}
const weatherTool: ToolSpec = {
  name: 'get_weather',
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      days: { type: 'integer', minimum: 1, maximum: 7 },
    },
    required: ['city', 'unit'],
  },
}

/** The `done` turn of a stream's events. */
function turnOf(events: Event[]): AssistantTurn {
  const done = events.at(-1)
  if (done?.type !== 'done') throw new Error('no done event')
  return done.turn
}

const ask = (content: string): Conversation => ({ turns: [{ role: 'user', content }] })

describe('mock without a script, offered tools', () => {
  it('calls the tool the user names, with arguments from its schema, and says why in its thinking', async () => {
    const events = await collect(
      mock().stream(ask('Use get_weather for "Oslo" in fahrenheit, for 3 days'), {
        tools: [clockTool, weatherTool],
      }),
    )
    const turn = turnOf(events)
    const call = {
      id: 'call_1_0',
      name: 'get_weather',
      input: { city: 'Oslo', unit: 'fahrenheit', days: 3 },
    }
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([{ type: 'tool-call', call }])
    expect(events.some((e) => e.type === 'text')).toBe(false)
    expect(turn).toMatchObject({ stopReason: 'tool-calls', toolCalls: [call], text: '' })
    expect(turn.thinking).toContain('The message names get_weather, so I call it.')
    expect(turn.thinking).toContain('{"city":"Oslo","unit":"fahrenheit","days":3}')
  })

  it('calls only the first offered tool the message names, and says which others it named', async () => {
    const turn = turnOf(
      await collect(
        mock().stream(ask('Check the clock, and get weather for Paris'), {
          tools: [weatherTool, clockTool],
        }),
      ),
    )
    expect(turn.toolCalls?.map((call) => [call.id, call.name])).toEqual([
      ['call_1_0', 'get_weather'],
    ])
    expect(turn.thinking).toContain('(and clock; one call is enough)')
  })

  it("follows the tool choice: 'none' calls none, 'required' the first offered, a name that tool", async () => {
    const none = turnOf(
      await collect(
        mock().stream(ask('what does the clock say?'), { tools: [clockTool], toolChoice: 'none' }),
      ),
    )
    expect(none.toolCalls ?? []).toEqual([])
    expect(none.stopReason).toBe('stop')
    expect(none.text).not.toContain('Mention a tool')

    const required = turnOf(
      await collect(
        mock().stream(ask('hello'), { tools: [clockTool, weatherTool], toolChoice: 'required' }),
      ),
    )
    expect(required.toolCalls?.map((call) => call.name)).toEqual(['clock'])

    const named = turnOf(
      await collect(
        mock().stream(ask('the clock, please'), {
          tools: [clockTool, weatherTool],
          toolChoice: { name: 'get_weather' },
        }),
      ),
    )
    expect(named.toolCalls?.map((call) => call.name)).toEqual(['get_weather'])
  })

  it('says which tools it could call, and how to ask, when the message names none', async () => {
    const turn = turnOf(
      await collect(mock().stream(ask('Weather in Paris?'), { tools: [clockTool, weatherTool] })),
    )
    expect(turn.toolCalls ?? []).toEqual([])
    expect(turn.text).toContain('You said: "Weather in Paris?"')
    expect(turn.text).toMatch(/Mention a tool by name \(clock, get_weather\) and I will call it\.$/)
  })

  it('answers tool results by quoting each one, and says when one is an error', async () => {
    const conversation: Conversation = {
      turns: [
        { role: 'user', content: 'clock and save_note "milk"' },
        {
          role: 'assistant',
          text: '',
          toolCalls: [
            { id: 'a', name: 'clock', input: {} },
            { id: 'b', name: 'save_note', input: { text: 'milk' } },
          ],
          usage: { inputTokens: 1, outputTokens: 1 },
          stopReason: 'tool-calls',
        },
        {
          role: 'tool',
          results: [
            { callId: 'a', name: 'clock', output: '2026-12-06T07:00:00Z' },
            { callId: 'b', name: 'save_note', output: 'denied by the user', isError: true },
          ],
        },
      ],
    }
    const turn = turnOf(await collect(mock().stream(conversation, { tools: [clockTool] })))
    expect(turn.text).toBe(
      'The clock tool returned "2026-12-06T07:00:00Z". ' +
        'The save_note tool returned an error: "denied by the user".',
    )
    expect(turn.toolCalls ?? []).toEqual([])
    expect(turn.stopReason).toBe('stop')
    expect(turn.thinking).toContain('2 tool results (clock, save_note)')
  })

  it('quotes a long tool output clipped, and an output of nothing as nothing', async () => {
    const results = (output: unknown): Conversation => ({
      turns: [{ role: 'tool', results: [{ callId: 'a', name: 'big', output }] }],
    })
    const long = turnOf(await collect(mock().stream(results({ list: 'x'.repeat(500) }))))
    expect(long.text).toBe(`The big tool returned {"list":"${'x'.repeat(191)}….`)
    const nothing = turnOf(await collect(mock().stream(results(undefined))))
    expect(nothing.text).toBe('The big tool returned nothing.')
  })

  it('gives each call an id that no earlier call of the conversation has', async () => {
    const adapter = mock()
    const first = turnOf(await collect(adapter.stream(ask('clock'), { tools: [clockTool] })))
    const later: Conversation = {
      turns: [
        ...ask('clock').turns,
        first,
        { role: 'tool', results: [{ callId: first.toolCalls![0]!.id, name: 'clock', output: 1 }] },
        { role: 'user', content: 'the clock again' },
      ],
    }
    const second = turnOf(await collect(adapter.stream(later, { tools: [clockTool] })))
    expect(second.toolCalls?.[0]?.id).not.toBe(first.toolCalls?.[0]?.id)
  })

  it('waits delayMs before each thinking delta of a tool call, as for text', async () => {
    vi.useFakeTimers()
    try {
      const events: Event[] = []
      const done = (async () => {
        const stream = mock({ delayMs: 50 }).stream(ask('clock'), { tools: [clockTool] })
        for await (const event of stream) events.push(event)
      })()
      await vi.advanceTimersByTimeAsync(49)
      expect(events).toEqual([])
      await vi.advanceTimersByTimeAsync(1)
      expect(events).toEqual([{ type: 'thinking', text: expect.any(String) }])
      await vi.runAllTimersAsync()
      await done
      const thoughts = events.filter((e) => e.type === 'thinking').length
      expect(thoughts).toBeGreaterThan(1)
      expect(turnOf(events).toolCalls?.map((call) => call.name)).toEqual(['clock'])
    } finally {
      vi.useRealTimers()
    }
  })

  it('keeps a scripted answer as scripted when tools are offered', async () => {
    const turn = turnOf(
      await collect(
        mock({ script: [{ text: 'as written' }] }).stream(ask('clock'), { tools: [clockTool] }),
      ),
    )
    expect(turn.text).toBe('as written')
    expect(turn.toolCalls ?? []).toEqual([])
  })

  it('runs a tool loop with runTools and ends by quoting what the tool returned', async () => {
    const execute = vi.fn((input: { text: string }) => `saved: ${input.text}`)
    const { turn, conversation, steps } = await runTools(
      mock(),
      ask('Please save_note "tea at 5"'),
      {
        tools: {
          clock: {
            parameters: { type: 'object', properties: {} },
            execute: () => '2026-12-06T07:00:00Z',
          },
          save_note: { parameters: z.object({ text: z.string().min(1) }), execute },
        },
      },
    )
    expect(steps).toBe(2)
    expect(execute).toHaveBeenCalledWith({ text: 'tea at 5' }, expect.anything())
    expect(conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(turn.text).toBe('The save_note tool returned "saved: tea at 5".')
  })
})
