import { describe, expectTypeOf, it } from 'vitest'
import type {
  Adapter,
  AssistantTurn,
  ErrorKind,
  Event,
  StopReason,
  Thinking,
  ToolCall,
  Turn,
} from '../../src/index.ts'
import { ThinkwireError, complete, runTools } from '../../src/index.ts'
import { z } from 'zod'
import type { FieldTable, WireCallOptions, WireEvents } from '../../src/core/wire.ts'

describe('the public contract types', () => {
  it('narrows events by type', () => {
    expectTypeOf<Extract<Event, { type: 'text' }>>().toEqualTypeOf<{ type: 'text'; text: string }>()
    expectTypeOf<Extract<Event, { type: 'tool-call' }>['call']>().toEqualTypeOf<ToolCall>()
    expectTypeOf<Extract<Event, { type: 'done' }>['turn']>().toEqualTypeOf<AssistantTurn>()
    expectTypeOf<Event['type']>().toEqualTypeOf<'thinking' | 'text' | 'tool-call' | 'done'>()
  })

  it('narrows turns by role', () => {
    expectTypeOf<Turn['role']>().toEqualTypeOf<'user' | 'assistant' | 'tool'>()
    expectTypeOf<Extract<Turn, { role: 'assistant' }>>().toEqualTypeOf<AssistantTurn>()
    expectTypeOf<AssistantTurn['text']>().toEqualTypeOf<string>()
    expectTypeOf<ToolCall['input']>().toEqualTypeOf<unknown>()
  })

  it('keeps the closed unions closed', () => {
    expectTypeOf<StopReason>().toEqualTypeOf<
      'stop' | 'length' | 'tool-calls' | 'refusal' | 'aborted' | 'other'
    >()
    expectTypeOf<ErrorKind>().toEqualTypeOf<
      | 'rate-limit'
      | 'overloaded'
      | 'auth'
      | 'invalid-request'
      | 'context-length'
      | 'content-filter'
      | 'server'
      | 'network'
      | 'timeout'
      | 'aborted'
      | 'invalid-output'
    >()
    expectTypeOf<Thinking>().toEqualTypeOf<
      'off' | 'low' | 'medium' | 'high' | 'max' | { budgetTokens: number }
    >()
  })

  it('types errors and results exactly', () => {
    expectTypeOf<ThinkwireError['kind']>().toEqualTypeOf<ErrorKind>()
    expectTypeOf<ThinkwireError['retryAfterMs']>().toEqualTypeOf<number | undefined>()
    expectTypeOf(complete).returns.resolves.toEqualTypeOf<AssistantTurn>()
    expectTypeOf<Adapter['stream']>().returns.toEqualTypeOf<AsyncIterable<Event>>()
  })
})

describe('the wire format', () => {
  it('makes a field table miss no field of its record, optional ones included', () => {
    type Turnish = { text: string; thinking?: string | undefined }
    const whole: FieldTable<Turnish, true> = { text: true, thinking: true }
    expectTypeOf(whole).toEqualTypeOf<FieldTable<Turnish, true>>()
    // @ts-expect-error: `thinking` is a field of the record, so the table must handle it.
    const missing: FieldTable<Turnish, true> = { text: true }
    expectTypeOf(missing).not.toBeAny()
  })

  it('sends over the wire every call option but the ones the relay owns', () => {
    expectTypeOf<keyof WireCallOptions>().toEqualTypeOf<
      | 'thinking'
      | 'tools'
      | 'toolChoice'
      | 'maxTokens'
      | 'temperature'
      | 'stop'
      | 'responseFormat'
      | 'cache'
    >()
    expectTypeOf<WireEvents['done']['turn']>().toEqualTypeOf<AssistantTurn>()
  })
})

describe('runTools tool inputs', () => {
  it('types execute from a Standard Schema, and as unknown (never never) from a JSON Schema', () => {
    const adapter = {} as Adapter
    void runTools(
      adapter,
      { turns: [] },
      {
        tools: {
          weather: {
            parameters: z.object({ city: z.string(), days: z.number().optional() }),
            execute: (input) => {
              expectTypeOf(input).toEqualTypeOf<{ city: string; days?: number | undefined }>()
              return input.city
            },
          },
          raw: {
            parameters: { type: 'object', properties: { q: { type: 'string' } } },
            execute: (input) => {
              expectTypeOf(input).toEqualTypeOf<unknown>()
              return 1
            },
          },
        },
      },
    )
  })
})
