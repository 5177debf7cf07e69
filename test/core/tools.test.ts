import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../src/core/conversation.ts'
import { runTools } from '../../src/core/tools.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { z } from 'zod'

const ask: Conversation = { turns: [{ role: 'user', content: 'Plan my trip' }] }
const parameters = { type: 'object', properties: {} }

describe('runTools', () => {
  it('runs the calls of one step in parallel and appends each step with its items', async () => {
    const order: string[] = []
    let running = 0
    let peak = 0
    const slow = (name: string) => async () => {
      running++
      peak = Math.max(peak, running)
      await new Promise((r) => setTimeout(r, 10))
      order.push(name)
      running--
      return `${name} done`
    }
    const adapter = mock({
      script: [
        {
          thinking: 'plan',
          toolCalls: [
            { id: 'a', name: 'flights', input: {} },
            { id: 'b', name: 'hotels', input: {} },
          ],
        },
        { text: 'Booked.' },
      ],
    })
    const result = await runTools(adapter, ask, {
      tools: {
        flights: { parameters, execute: slow('flights') },
        hotels: { parameters, execute: slow('hotels') },
      },
    })
    expect(peak).toBe(2)
    expect(result.steps).toBe(2)
    expect(result.turn.text).toBe('Booked.')
    expect(result.conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(result.conversation.turns[1]).toMatchObject({
      thinking: 'plan',
      items: { provider: 'mock' },
    })
    expect(result.conversation.turns[2]).toEqual({
      role: 'tool',
      results: [
        { callId: 'a', name: 'flights', output: 'flights done' },
        { callId: 'b', name: 'hotels', output: 'hotels done' },
      ],
    })
    expect(adapter.calls[0]?.options.tools).toEqual([
      { name: 'flights', description: undefined, parameters },
      { name: 'hotels', description: undefined, parameters },
    ])
    expect(ask.turns).toHaveLength(1)
  })

  it('answers a throwing tool and an unknown tool as errors the model can read', async () => {
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
    const result = await runTools(adapter, ask, {
      tools: {
        broken: {
          parameters,
          execute: () => {
            throw new Error('database down')
          },
        },
      },
    })
    expect(result.conversation.turns[2]).toEqual({
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

  it('stops after maxSteps model calls', async () => {
    const adapter = mock({ script: [{ toolCalls: [{ name: 'again', input: {} }] }] })
    const result = await runTools(adapter, ask, {
      tools: { again: { parameters, execute: () => 1 } },
      maxSteps: 3,
    })
    expect(result.steps).toBe(3)
    expect(adapter.calls).toHaveLength(3)
    expect(result.turn.toolCalls).toHaveLength(1)
  })

  it('stops the loop when the signal aborts while a tool runs', async () => {
    const controller = new AbortController()
    const adapter = mock({
      script: [{ toolCalls: [{ name: 'wait', input: {} }] }, { text: 'never' }],
    })
    const run = runTools(adapter, ask, {
      signal: controller.signal,
      tools: {
        wait: {
          parameters,
          execute: () => {
            controller.abort()
            return 'late'
          },
        },
      },
    })
    await expect(run).rejects.toMatchObject({ kind: 'aborted' })
    expect(adapter.calls).toHaveLength(1)
  })

  it('passes the input and the signal to execute, and reports each step', async () => {
    const controller = new AbortController()
    const seen: unknown[] = []
    const steps: number[] = []
    const adapter = mock({
      script: [{ toolCalls: [{ name: 'echo', input: { v: 1 } }] }, { text: 'ok' }],
    })
    await runTools(adapter, ask, {
      signal: controller.signal,
      onStep: ({ results }) => steps.push(results?.results.length ?? 0),
      tools: {
        echo: {
          parameters,
          execute: (input: { v: number }, { signal }) => seen.push(input, signal),
        },
      },
    })
    expect(seen).toEqual([{ v: 1 }, controller.signal])
    expect(steps).toEqual([1, 0])
  })

  it('shows every event of every step to onEvent and reports no step whose tools were stopped', async () => {
    const controller = new AbortController()
    const seen: string[] = []
    const steps: unknown[] = []
    const adapter = mock({
      script: [{ toolCalls: [{ name: 'echo', input: {} }] }, { text: 'ok' }],
    })
    await runTools(adapter, ask, {
      onEvent: (event) => seen.push(event.type),
      tools: { echo: { parameters, execute: () => 'echoed' } },
    })
    expect(seen).toEqual(['tool-call', 'done', 'text', 'done'])
    const stopped = runTools(
      mock({ script: [{ toolCalls: [{ name: 'wait', input: {} }] }] }),
      ask,
      {
        signal: controller.signal,
        onStep: (step) => steps.push(step),
        tools: { wait: { parameters, execute: () => controller.abort() } },
      },
    )
    await expect(stopped).rejects.toMatchObject({ kind: 'aborted' })
    expect(steps).toEqual([])
  })
})

describe('runTools with a Standard Schema', () => {
  const weather = z.object({ city: z.string().min(2) })

  it('sends its JSON Schema and hands execute the validated input', async () => {
    const upstream = mock({
      script: [
        { toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'Paris', extra: true } }] },
        { text: 'Sonnig.' },
      ],
    })
    const inputs: unknown[] = []
    await runTools(upstream, ask, {
      tools: {
        weather: {
          parameters: weather,
          execute: (input) => {
            inputs.push(input)
            return `sunny in ${input.city}`
          },
        },
      },
    })
    expect(upstream.calls[0]?.options.tools?.[0]?.parameters).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', minLength: 2 } },
      required: ['city'],
    })
    // zod strips the unknown key: execute sees the schema's output.
    expect(inputs).toEqual([{ city: 'Paris' }])
  })

  it('answers an input the schema refuses as an error naming the path, without running the tool', async () => {
    const upstream = mock({
      script: [
        { toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'P' } }] },
        { text: 'Entschuldigung.' },
      ],
    })
    let runs = 0
    const { conversation } = await runTools(upstream, ask, {
      tools: { weather: { parameters: weather, execute: () => runs++ } },
    })
    expect(runs).toBe(0)
    expect(conversation.turns[2]).toMatchObject({
      role: 'tool',
      results: [
        {
          callId: 'c1',
          isError: true,
          output: expect.stringMatching(/^Invalid input for tool 'weather' at city: /),
        },
      ],
    })
  })
})
