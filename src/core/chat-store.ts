import type { ChatInput, ChatSnapshot } from './chat.ts'
import type { WireCallOptions } from './wire.ts'

/**
 * A store that `useConversation` can bind to, such as a conversation that lives on a relay
 * (`relayConversation` from `thinkwire/client`): a snapshot to render, and the actions on it.
 */
export type ChatStore = {
  subscribe(listener: () => void): () => void
  getSnapshot(): ChatSnapshot
  send(input: ChatInput, options?: WireCallOptions): Promise<void>
  stop(): void
  regenerate(options?: WireCallOptions): Promise<void>
}
