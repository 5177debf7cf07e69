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
import { ThinkwireError, complete } from '../../src/index.ts'

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
