import { describe, expectTypeOf, it } from 'vitest'
import type { Adapter } from '../../src/core/adapter.ts'
import type {
  AssistantTurn,
  Conversation,
  UserPart,
  UserTurn,
} from '../../src/core/conversation.ts'
import type { ThinkwireError } from '../../src/core/errors.ts'
import type { ToolCall } from '../../src/core/events.ts'
import type { ToolContext } from '../../src/core/tools.ts'
import { relay, type RelayOptions } from '../../src/client/index.ts'
import {
  useChat,
  type ChatMessage,
  type ChatStatus,
  type UseChatOptions,
  type UseChatResult,
} from '../../src/react/index.ts'

describe('useChat types', () => {
  it('returns messages, status, error, actions and the conversation', () => {
    type R = ReturnType<typeof useChat>
    expectTypeOf<R>().toEqualTypeOf<UseChatResult>()
    expectTypeOf<R['messages']>().toEqualTypeOf<readonly ChatMessage[]>()
    expectTypeOf<R['status']>().toEqualTypeOf<ChatStatus>()
    expectTypeOf<ChatStatus>().toEqualTypeOf<'ready' | 'submitted' | 'streaming' | 'error'>()
    expectTypeOf<R['error']>().toEqualTypeOf<ThinkwireError | undefined>()
    expectTypeOf<R['conversation']>().toEqualTypeOf<Conversation>()
    expectTypeOf<R['stop']>().toEqualTypeOf<() => void>()
    expectTypeOf<R['regenerate']>().returns.toEqualTypeOf<Promise<void>>()
    expectTypeOf<R['setConversation']>().parameters.toEqualTypeOf<[Conversation]>()
  })

  it('sends text, parts or a whole user turn', () => {
    type Send = UseChatResult['send']
    expectTypeOf<Send>().returns.toEqualTypeOf<Promise<void>>()
    expectTypeOf<Send>().toBeCallableWith('Hello')
    expectTypeOf<Send>().toBeCallableWith([{ type: 'text', text: 'Hi' }] satisfies UserPart[])
    expectTypeOf<Send>().toBeCallableWith({ role: 'user', content: 'Hi' } satisfies UserTurn)
    expectTypeOf<Send>().toBeCallableWith('Hi', { thinking: 'high' })
    // @ts-expect-error a number is not a message
    expectTypeOf<Send>().toBeCallableWith(42)
  })

  it('gives messages ready to render', () => {
    expectTypeOf<ChatMessage['id']>().toEqualTypeOf<string>()
    expectTypeOf<ChatMessage['role']>().toEqualTypeOf<'user' | 'assistant'>()
    expectTypeOf<ChatMessage['text']>().toEqualTypeOf<string>()
    expectTypeOf<ChatMessage['thinking']>().toEqualTypeOf<string>()
    expectTypeOf<ChatMessage['status']>().toEqualTypeOf<'streaming' | 'stopped' | 'done'>()
    expectTypeOf<ChatMessage['toolCalls'][number]>().toExtend<ToolCall>()
    expectTypeOf<ChatMessage['turn']>().toEqualTypeOf<AssistantTurn | undefined>()
  })

  it('takes an adapter and optional settings, callbacks and scheduler', () => {
    expectTypeOf<UseChatOptions['adapter']>().toEqualTypeOf<Adapter>()
    expectTypeOf<{ adapter: Adapter }>().toExtend<UseChatOptions>()
    expectTypeOf<UseChatOptions['onToolCall']>().toEqualTypeOf<
      ((call: ToolCall, context: ToolContext) => unknown) | undefined
    >()
    expectTypeOf<UseChatOptions['onFinish']>().toEqualTypeOf<
      ((turn: AssistantTurn) => void) | undefined
    >()
    expectTypeOf<UseChatOptions['onError']>().toEqualTypeOf<
      ((error: ThinkwireError) => void) | undefined
    >()
    expectTypeOf<UseChatOptions['scheduler']>().toEqualTypeOf<
      ((flush: () => void) => void) | undefined
    >()
    expectTypeOf<UseChatOptions['initialConversation']>().toEqualTypeOf<Conversation | undefined>()
    expectTypeOf(useChat).toBeCallableWith({
      adapter: relay({ url: '', model: 'mock/echo' }),
      thinking: 'medium',
      tools: [{ name: 'weather', parameters: { type: 'object' } }],
      onToolCall: () => 'sunny',
    })
  })

  it('makes a relay adapter from a url, a model and optional headers or fetch', () => {
    expectTypeOf(relay).returns.toEqualTypeOf<Adapter>()
    expectTypeOf(relay).toBeCallableWith({
      url: 'https://relay.example',
      model: 'anthropic/claude-haiku-4-5',
      headers: async () => ({ authorization: 'Bearer t' }),
      fetch: globalThis.fetch,
    })
    expectTypeOf<RelayOptions['headers']>().toExtend<
      HeadersInit | (() => HeadersInit | Promise<HeadersInit>) | undefined
    >()
  })
})
