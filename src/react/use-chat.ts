import * as React from 'react'
import type { Adapter, CallOptions, Thinking, ToolSpec } from '../core/adapter.ts'
import {
  Chat,
  type ChatInput,
  type ChatOptions,
  type ChatStatus,
  type Scheduler,
} from '../core/chat.ts'
import type { AssistantTurn, Conversation } from '../core/conversation.ts'
import type { ThinkwireError } from '../core/errors.ts'
import type { ChatMessage } from '../core/messages.ts'
import { nextFrame } from '../core/next-frame.ts'

/** Options of {@link useChat}. All but `initialConversation` may change from render to render. */
export type UseChatOptions = {
  /** Any adapter: `relay()` in a browser, a provider adapter, or `mock()`. */
  adapter: Adapter
  /** Reasoning effort of every send. @defaultValue the model's default */
  thinking?: Thinking | undefined
  /** Tools the model may call; answer them with `onToolCall`. */
  tools?: ToolSpec[] | undefined
  /** Answers a tool call in the browser; the model is then called again with the results. */
  onToolCall?: ChatOptions['onToolCall']
  /** Most model calls per send in a tool loop. @defaultValue 8 */
  maxSteps?: number | undefined
  /** The conversation to start from (read once, on the first render). */
  initialConversation?: Conversation | undefined
  /** Called with the last assistant turn of a send that finished or was stopped. */
  onFinish?: ((turn: AssistantTurn) => void) | undefined
  /** Called when a send fails (the error is also in `error`). */
  onError?: ((error: ThinkwireError) => void) | undefined
  /**
   * Batches streaming updates into one render. Status changes always render at once.
   * @defaultValue once per animation frame (`requestAnimationFrame`, else a 16 ms timer)
   */
  scheduler?: Scheduler | undefined
}

/** What {@link useChat} returns. */
export type UseChatResult = {
  /** Messages ready to render; the streaming one is last and updates in place. */
  messages: readonly ChatMessage[]
  status: ChatStatus
  /** The error of the last send, while `status` is `'error'`. */
  error: ThinkwireError | undefined
  /** Sends a message. Resolves when the answer (and any tool loop) ends; never rejects. */
  send(input: ChatInput, options?: CallOptions): Promise<void>
  /** Stops the answer; what arrived stays as a plain-text turn. */
  stop(): void
  /** Asks again: the last answer is replaced (or the failed message is sent again). */
  regenerate(options?: CallOptions): Promise<void>
  /** Complete turns only, items included: persist it and restore it with `setConversation`. */
  conversation: Conversation
  setConversation(conversation: Conversation): void
}

async function drain(start: () => AsyncIterable<unknown>): Promise<void> {
  try {
    for await (const _ of start());
  } catch {
    // A failed send is in the state (`status`, `error`); a send while busy is ignored.
  }
}

/**
 * The chat's options (its conversation is read once, when it is made). Every option is named, so
 * one a later render leaves out is cleared rather than kept from an earlier render.
 */
function settings(options: UseChatOptions): ChatOptions {
  const { adapter, thinking, tools, onToolCall, maxSteps, onFinish, onError, scheduler } = options
  return {
    adapter,
    conversation: options.initialConversation,
    options: { thinking, tools },
    onToolCall,
    maxSteps,
    onFinish,
    onError,
    scheduler: scheduler ?? nextFrame,
  }
}

/**
 * Stops a chat's answer once its component is gone for good. Effect cleanups cannot tell: a
 * hidden `<Activity>` and StrictMode's development remount run them too, and must not stop the
 * answer. So the hook's state is a token whose collection (React has dropped the component) stops
 * the chat; the chat never refers to the token. Without `FinalizationRegistry`, nothing is
 * stopped: the answer ends on its own.
 */
// Marked pure, so that an app that binds `useConversation` only does not ship it.
const forgotten =
  typeof FinalizationRegistry === 'function'
    ? /* @__PURE__ */ new FinalizationRegistry<Chat>((chat) => chat.stop())
    : undefined

/**
 * The hook's state: the chat and its actions, made once (stable from render to render). The
 * object is the token of {@link forgotten}; the app gets its functions, never the object.
 */
function bind(chat: Chat) {
  const bound = {
    chat,
    send: (input: ChatInput, call?: CallOptions) => drain(() => chat.send(input, call)),
    regenerate: (call?: CallOptions) => drain(() => chat.regenerate(call)),
    stop: () => chat.stop(),
    setConversation: (conversation: Conversation) => chat.setConversation(conversation),
  }
  forgotten?.register(bound, chat)
  return bound
}

/**
 * A React binding of {@link Chat}: streams answers into `messages`, rendering at most once per
 * animation frame while tokens arrive, with stop, regenerate and client-side tools.
 *
 * @example
 * ```tsx
 * const { messages, status, send, stop } = useChat({ adapter: relay({ url: '', model: 'mock/echo' }) })
 * return (
 *   <>
 *     {messages.map((m) => <p key={m.id}>{m.text}</p>)}
 *     <button onClick={() => (status === 'streaming' ? stop() : send('Hi'))}>Go</button>
 *   </>
 * )
 * ```
 */
export function useChat(options: UseChatOptions): UseChatResult {
  const [{ chat, ...actions }] = React.useState(() => bind(new Chat(settings(options))))
  React.useEffect(() => chat.update(settings(options)))
  // A new result object per render, but the messages in it are the snapshot's, and unchanged
  // messages are the very same objects from one snapshot to the next.
  return {
    ...React.useSyncExternalStore(chat.subscribe, chat.getSnapshot, chat.getSnapshot),
    ...actions,
  }
}
