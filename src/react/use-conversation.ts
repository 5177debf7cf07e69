import { useMemo, useSyncExternalStore } from 'react'
import type { CallOptions } from '../core/adapter.ts'
import type { ChatInput } from '../core/chat.ts'
import type { ChatStore } from '../core/chat-store.ts'
import type { UseChatResult } from './use-chat.ts'

/** What {@link useConversation} returns: `useChat`'s result for a store that keeps its own conversation. */
export type UseConversationResult = Omit<UseChatResult, 'setConversation'> & {
  /** The conversation's stream dropped and is being resumed: say so while an answer is in flight. */
  reconnecting: boolean
}

/**
 * Binds any chat store, such as a conversation that lives on a relay (`relayConversation` from
 * `thinkwire/client`), like `useChat` binds a `Chat`. Unmounting stops nothing: the answer goes on
 * on the relay, and the store picks it up again when the page comes back.
 *
 * @example
 * ```tsx
 * const [store] = useState(() => relayConversation({ url: '', model: 'mock/echo', id }))
 * useEffect(() => {
 *   store.load().catch(() => {}) // a failure is also `error`
 *   return () => store.dispose()
 * }, [store])
 * const { messages, status, send, stop, regenerate } = useConversation(store)
 * ```
 */
export function useConversation(store: ChatStore): UseConversationResult {
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot)
  // Stable for one store; a page that opens another conversation passes another store.
  const actions = useMemo(
    () => ({
      send: (input: ChatInput, call?: CallOptions) => store.send(input, call).catch(() => {}),
      regenerate: (call?: CallOptions) => store.regenerate(call).catch(() => {}),
      stop: () => store.stop(),
    }),
    [store],
  )
  return { ...snapshot, reconnecting: snapshot.reconnecting === true, ...actions }
}
