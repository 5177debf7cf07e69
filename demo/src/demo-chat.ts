import type { WireApproval } from '../../src/core/wire.ts'
import type { ThinkwireError } from '../../src/index.ts'
import type { ChatMessage, ChatStatus } from '../../src/react/index.ts'
import type { CutAnswer } from './cut-answer.ts'
import type { AnswerStats, ThinkingLevel } from './storage.ts'
import type { LiveTiming } from './timings.ts'

/** What the page needs of a chat, in either mode: durable (the default) or stateless. */
export type DemoChat = {
  messages: readonly ChatMessage[]
  status: ChatStatus
  error: ThinkwireError | undefined
  /** The answer's stream dropped and is being resumed (durable mode). */
  reconnecting: boolean
  send(text: string): void
  stop(): void
  /** A new answer to the last question, shown in place of the old one once complete. */
  regenerate(): void
  /** Asks again after an error, or a question a reload cut off: the question is sent anew. */
  retry(): void
  /**
   * The last question's answer was cut off by a reload (stateless mode: the page held the answer
   * in flight). The question is the last message; `retry()` sends it again.
   */
  interrupted: boolean
  /**
   * Durable mode: the answer a restart of the relay cut, marked on it with what became of it (kept
   * as it stood, or asked again), until the next answer starts.
   */
  cutAnswer?: CutAnswer | undefined
  /** Clears the error; returns the question to give back to the prompt when it left the chat. */
  dismiss(): string | undefined
  /** Starts an empty chat; the current one stays in `previous`. */
  newChat(): void
  /** Earlier chats, newest first (the current one left out). */
  previous: readonly PreviousChat[]
  open(id: string): void
  /** The timings of an answer, when this page timed it. */
  statsFor(message: ChatMessage): AnswerStats | undefined
  /** Durable mode: the server tools' calls that wait for a person, and the decisions on them. */
  approvals?: {
    waiting: readonly WireApproval[]
    approve(approvalId: string): void
    deny(approvalId: string): void
  }
  /**
   * Durable mode: versions of messages (a regenerated answer, an edited question), the queue of
   * messages sent while an answer runs, and titles of the previous chats.
   */
  durable?: Durable
}

/** What durable mode adds: versions, edits, the queue and titles. */
export type Durable = {
  /** Shows version `index` of the message at `messageIndex` of `messages`. */
  selectBranch(messageIndex: number, index: number): void
  /** Sends a new version of the question at `messageIndex`: what came after it gives way. */
  edit(messageIndex: number, text: string): void
  /** The messages sent while an answer runs, in the order they will go (as text). */
  queue: readonly string[]
  /** Drops the queued messages, in every tab. */
  clearQueue(): void
  /** Renames a previous chat; rejects with the relay's reason. */
  rename(id: string, title: string): Promise<void>
}

/** One line of the list of earlier chats. */
export type PreviousChat = { id: string; title: string; updatedAt: number | undefined }

/** What both modes are given by the page. */
export type DemoChatOptions = {
  model: string
  /** The thinking level of each send; undefined for a model that cannot think. */
  thinking: ThinkingLevel | undefined
  /** Sent with every request (the bearer token, once the user gave one). */
  headers: () => HeadersInit
  /** The call in flight, timed by the relay clients' fetch and by the chat. */
  live: LiveTiming
  /** The relay token changed: what failed for want of it may be loaded again. */
  token: string
  /** Durable mode: messages name the Worker's server tools (`clock`, `save_note`). */
  serverTools: boolean
}
