import { describe, expect, it } from 'vitest'
import type { Adapter } from '../../src/core/adapter.ts'
import type { Conversation } from '../../src/core/conversation.ts'
import {
  executeToolCalls,
  toolLoop,
  type ToolLoopEvent,
  type ToolLoopResult,
} from '../../src/core/tool-loop.ts'
import { toolExecutor } from '../../src/core/tools.ts'
import { mock } from '../../src/providers/mock/index.ts'

const ask: Conversation = {
  system: 'Be brief.',
  turns: [{ role: 'user', content: 'Plan my trip' }],
}
const parameters = { type: 'object' }

/** Every value the loop yields, and what it returned or threw. */
async function drive(
  loop: AsyncGenerator<ToolLoopEvent, ToolLoopResult, undefined>,
): Promise<{ events: ToolLoopEvent[]; result?: ToolLoopResult; error?: unknown }> {
  const events: ToolLoopEvent[] = []
  try {
    for (;;) {
      const next = await loop.next()
      if (next.done === true) return { events, result: next.value }
      events.push(next.value)
    }
  } catch (error) {
    return { events, error }
  }
}

const twoCalls = {
  thinking: 'plan',
  toolCalls: [
    { id: 'a', name: 'flights', input: { to: 'Oslo' } },
    { id: 'b', name: 'hotels', input: {} },
  ],
}

describe('toolLoop', () => {
  it('streams every step and yields the tool results between the steps', async () => {
    const adapter = mock({ chunkSize: 100, script: [twoCalls, { text: 'Booked.' }] })
    const { events, result } = await drive(
      toolLoop(adapter, ask, { execute: (call) => `${call.name} done` }),
    )
    expect(events.map((event) => event.type)).toEqual([
      'thinking',
      'tool-call',
      'tool-call',
      'done',
      'tool-results',
      'text',
      'done',
    ])
    const first = events[3]
    const results = events[4]
    expect(results).toEqual({
      type: 'tool-results',
      turn: first?.type === 'done' ? first.turn : undefined,
      results: {
        role: 'tool',
        results: [
          { callId: 'a', name: 'flights', output: 'flights done' },
          { callId: 'b', name: 'hotels', output: 'hotels done' },
        ],
      },
    })
    expect(result?.steps).toBe(2)
    expect(result?.turn.text).toBe('Booked.')
    expect(result?.conversation.system).toBe('Be brief.')
    expect(result?.conversation.turns.map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    // The assistant turn is appended with its items, so the next call replays it.
    expect(result?.conversation.turns[1]).toMatchObject({ items: { provider: 'mock' } })
    expect(adapter.calls[1]?.request[1]).toHaveProperty('replayed')
    expect(ask.turns).toHaveLength(1)
  })

  it('runs the calls of one step in parallel and answers them in call order', async () => {
    let running = 0
    let peak = 0
    const adapter = mock({ script: [twoCalls, { text: 'ok' }] })
    const { result } = await drive(
      toolLoop(adapter, ask, {
        execute: async (call) => {
          running++
          peak = Math.max(peak, running)
          // The first call finishes last.
          await new Promise((resolve) => setTimeout(resolve, call.id === 'a' ? 20 : 1))
          running--
          return call.id
        },
      }),
    )
    expect(peak).toBe(2)
    expect(result?.conversation.turns[2]).toMatchObject({
      results: [{ output: 'a' }, { output: 'b' }],
    })
  })

  it('makes at most maxSteps calls and answers the last calls as not run, so the conversation stays valid', async () => {
    const adapter = mock({ script: [{ toolCalls: [{ name: 'again', input: {} }] }] })
    let executed = 0
    const { result } = await drive(
      toolLoop(adapter, ask, { maxSteps: 3, execute: () => executed++ }),
    )
    expect(adapter.calls).toHaveLength(3)
    expect(executed).toBe(2)
    expect(result?.steps).toBe(3)
    expect(result?.conversation.turns.at(-1)).toEqual({
      role: 'tool',
      results: [
        {
          callId: 'call_2_0',
          name: 'again',
          output: 'Not run: the limit of 3 model calls was reached before this call.',
          isError: true,
        },
      ],
    })
    expect(result?.turn.toolCalls).toHaveLength(1)
  })

  it('makes one call and answers nothing without an executor', async () => {
    const adapter = mock({ script: [twoCalls, { text: 'never' }] })
    const { events, result } = await drive(toolLoop(adapter, ask, {}))
    expect(events.some((event) => event.type === 'tool-results')).toBe(false)
    expect(result?.steps).toBe(1)
    expect(adapter.calls).toHaveLength(1)
  })

  it('throws aborted, with no results, when the signal aborts during a tool', async () => {
    const controller = new AbortController()
    const adapter = mock({ script: [twoCalls, { text: 'never' }] })
    const { events, error } = await drive(
      toolLoop(adapter, ask, {
        signal: controller.signal,
        execute: async (call, { signal }) => {
          if (call.id === 'a') {
            await new Promise((resolve) => setTimeout(resolve, 1))
            controller.abort()
            return 'finished anyway'
          }
          return new Promise((_, reject) =>
            signal?.addEventListener('abort', () => reject(new Error('cancelled'))),
          )
        },
      }),
    )
    // The calls are left to the caller to answer (Chat answers them as stopped): nothing the tools
    // returned after the abort is yielded.
    expect(events.map((event) => event.type)).toEqual([
      'thinking',
      'tool-call',
      'tool-call',
      'done',
    ])
    expect(error).toMatchObject({ kind: 'aborted' })
    expect(adapter.calls).toHaveLength(1)
  })

  it('answers an unknown tool and a throwing tool as isError results the model can read', async () => {
    const adapter = mock({
      script: [
        {
          toolCalls: [
            { id: 'a', name: 'broken', input: {} },
            { id: 'b', name: 'nope', input: {} },
          ],
        },
        { text: 'Sorry.' },
      ],
    })
    const execute = toolExecutor({
      broken: {
        parameters,
        execute: () => {
          throw new Error('database down')
        },
      },
    })
    const { result } = await drive(toolLoop(adapter, ask, { execute }))
    expect(result?.conversation.turns[2]).toEqual({
      role: 'tool',
      results: [
        { callId: 'a', name: 'broken', output: 'database down', isError: true },
        {
          callId: 'b',
          name: 'nope',
          output: "Unknown tool 'nope'. Known tools: broken",
          isError: true,
        },
      ],
    })
  })

  it('passes the call options to every step, without its own options', async () => {
    const adapter = mock({ script: [twoCalls, { text: 'ok' }] })
    const tools = [{ name: 'flights', parameters }]
    await drive(toolLoop(adapter, ask, { tools, temperature: 0, maxSteps: 2, execute: () => 1 }))
    expect(adapter.calls.map((call) => call.options)).toEqual([
      { tools, temperature: 0 },
      { tools, temperature: 0 },
    ])
  })

  it('fails as the stream fails, with nothing appended', async () => {
    const adapter = mock({
      script: [{ text: 'partial', fail: { kind: 'server', afterEvents: 1 } }],
    })
    const { events, error } = await drive(toolLoop(adapter, ask, { execute: () => 1 }))
    expect(events.map((event) => event.type)).toEqual(['text'])
    expect(error).toMatchObject({ kind: 'server' })
  })

  it('throws when a hand-made adapter ends its stream without done', async () => {
    const adapter: Adapter = {
      provider: 'hand-made',
      model: 'm',
      async *stream() {
        yield { type: 'text', text: 'hi' }
      },
    }
    const { error } = await drive(toolLoop(adapter, ask, {}))
    expect(error).toBeInstanceOf(TypeError)
    expect(String(error)).toMatch(/hand-made: stream ended without 'done'/)
  })
})

describe('executeToolCalls', () => {
  it('throws aborted without running a call when the signal has already aborted', async () => {
    const controller = new AbortController()
    controller.abort()
    let ran = false
    const calls = [{ id: 'a', name: 'x', input: {} }]
    await expect(
      executeToolCalls(calls, controller.signal, () => {
        ran = true
      }),
    ).rejects.toMatchObject({ kind: 'aborted' })
    expect(ran).toBe(false)
  })
})
