import { useMemo, useSyncExternalStore } from 'react'
import type { ChatInput, ChatSnapshot } from '../core/chat.ts'
import type { ChatStore } from '../core/chat-store.ts'
import type { WireCallOptions, WireLoopOptions } from '../core/wire.ts'
import type { UseChatResult } from './use-chat.ts'

/**
 * What {@link useConversation} returns: `useChat`'s result for a store that keeps its own
 * conversation, with what its tool loop waits on (`pending`) and an answer a restart cut
 * (`interrupted`), as the store's snapshot says.
 */
export type UseConversationResult = Omit<UseChatResult, 'setConversation' | 'send' | 'regenerate'> &
  Pick<ChatSnapshot, 'pending' | 'interrupted'> & {
    /** The conversation's stream dropped and is being resumed: say so while an answer is in flight. */
    reconnecting: boolean
    /** Sends a message; `options` may name the relay's `serverTools` and the loop's `maxSteps`. */
    send: (input: ChatInput, options?: WireCallOptions & WireLoopOptions) => Promise<void>
    regenerate: (options?: WireCallOptions & WireLoopOptions) => Promise<void>
    /** Approves a call of `pending.approvals`; a refusal (404, 409, 410) is `error`. */
    approve: (approvalId: string) => Promise<void> | undefined
    /** Denies a call of `pending.approvals`, telling the model `reason`; as `approve`. */
    deny: (approvalId: string, reason?: string) => Promise<void> | undefined
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
      send: (input: ChatInput, call?: WireCallOptions & WireLoopOptions) =>
        store.send(input, call).catch(() => {}),
      regenerate: (call?: WireCallOptions & WireLoopOptions) =>
        store.regenerate(call).catch(() => {}),
      stop: () => store.stop(),
      approve: (approvalId: string) => store.approve?.(approvalId),
      deny: (approvalId: string, reason?: string) => store.deny?.(approvalId, reason),
    }),
    [store],
  )
  return {
    ...snapshot,
    reconnecting: snapshot.reconnecting === true,
    ...actions,
  }
}
