import { useSyncExternalStore } from 'react'
import type { ChatStore } from '../core/chat-store.ts'
import type { UseChatResult } from './use-chat.ts'

/** The actions of a store that {@link useConversation} hands out. */
type StoreActions =
  | 'send'
  | 'regenerate'
  | 'stop'
  | 'approve'
  | 'deny'
  | 'edit'
  | 'selectBranch'
  | 'clearQueue'
  | 'rename'

/**
 * What {@link useConversation} returns: `useChat`'s result for a store that keeps its own
 * conversation, with what the store's snapshot says besides (for `relayConversation`: what its
 * tool loop waits on, `pending`; an answer a restart cut, `interrupted`; the messages queued on
 * its relay, `queue`; a dropped stream being resumed, `reconnecting`) and the store's own actions
 * (`relayConversation`'s: send, regenerate, stop, approve and deny, edit, selectBranch, clearQueue
 * and rename), whose failures are `error`.
 */
export type UseConversationResult<Store extends ChatStore = ChatStore> = Omit<
  UseChatResult,
  'setConversation' | StoreActions
> &
  Pick<ReturnType<Store['getSnapshot']>, 'pending' | 'interrupted' | 'queue' | 'reconnecting'> &
  Pick<Store, StoreActions>

/**
 * Binds any chat store, such as a conversation that lives on a relay (`relayConversation` from
 * `thinkwire/client`), like `useChat` binds a `Chat`: its snapshot, and its actions as they are
 * (the same functions from one render to the next). Unmounting stops nothing: the answer goes on
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
export function useConversation<Store extends ChatStore>(
  store: Store,
): UseConversationResult<Store> {
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot)
  // The store's own actions, which need no `this` (as `relayConversation`'s): the same functions
  // from one render to the next. What else it has is there too, left out of the result's type.
  return { ...store, ...snapshot }
}
