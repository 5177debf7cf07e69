import type { ChatInput, ChatSnapshot } from './chat.ts'
import type { UserTurn } from './conversation.ts'
import type { WireCallOptions, WireLoopOptions } from './wire.ts'

/** What a store's snapshot holds: a chat's, and the user messages that wait in its relay's queue. */
export type ChatStoreSnapshot = ChatSnapshot & {
  /**
   * The messages sent while an answer ran, queued on the relay (a durable conversation, DESIGN
   * §14), in the order they will go; each leaves it when its turn comes.
   */
  readonly queue?: readonly UserTurn[] | undefined
}

/**
 * A store that `useConversation` can bind to, such as a conversation that lives on a relay
 * (`relayConversation` from `thinkwire/client`): a snapshot to render, and the actions on it.
 * Message indexes count the snapshot's `messages`, from 0.
 */
export type ChatStore = {
  subscribe(listener: () => void): () => void
  getSnapshot(): ChatStoreSnapshot
  send(input: ChatInput, options?: WireCallOptions & WireLoopOptions): Promise<void>
  stop(): void
  regenerate(options?: WireCallOptions & WireLoopOptions): Promise<void>
  /**
   * Decide a call that waits for a person (the snapshot's `pending.approvals`), in a store whose
   * conversation runs a tool loop; a refusal is the store's `error`.
   */
  approve?(approvalId: string): Promise<void>
  deny?(approvalId: string, reason?: string): Promise<void>
  /** Sends a new version of the user message at `index`, in place of it and all after it. */
  edit?(
    index: number,
    content: UserTurn['content'],
    options?: WireCallOptions & WireLoopOptions,
  ): Promise<void>
  /** Shows version `version` (its `branch.index`) of the message at `index`. */
  selectBranch?(index: number, version: number): Promise<void>
  /** Drops the messages that wait in the queue. */
  clearQueue?(): Promise<void>
  /** Gives the conversation a title. */
  rename?(title: string): Promise<void>
}
