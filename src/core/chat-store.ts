import type { ChatInput, ChatSnapshot } from './chat.ts'
import type { WireCallOptions, WireLoopOptions } from './wire.ts'

/**
 * A store that `useConversation` can bind to, such as a conversation that lives on a relay
 * (`relayConversation` from `thinkwire/client`): a snapshot to render, and the actions on it.
 */
export type ChatStore = {
  subscribe(listener: () => void): () => void
  getSnapshot(): ChatSnapshot
  send(input: ChatInput, options?: WireCallOptions & WireLoopOptions): Promise<void>
  stop(): void
  regenerate(options?: WireCallOptions & WireLoopOptions): Promise<void>
  /**
   * Decide a call that waits for a person (the snapshot's `pending.approvals`), in a store whose
   * conversation runs a tool loop; a refusal is the store's `error`.
   */
  approve?(approvalId: string): Promise<void>
  deny?(approvalId: string, reason?: string): Promise<void>
}
