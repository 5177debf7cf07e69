import type { ChatSnapshot } from '../../src/core/chat.ts'
import type { ChatMessage } from '../../src/react/index.ts'

/** An answer a restart of the relay cut, as the page marks it: its message, and what to say. */
export type CutAnswer = { id: string; note: string }

/**
 * The answer a restart of the relay cut (a durable conversation's `interrupted`, until the next
 * answer starts): the last message, once the answer has one. What arrived of it was kept as a
 * stopped turn, or it was asked again from its start (and until its first event arrives, the
 * last message is the question: nothing is marked yet).
 */
export function cutAnswer(
  messages: readonly ChatMessage[],
  interrupted: ChatSnapshot['interrupted'],
): CutAnswer | undefined {
  const last = messages.at(-1)
  if (interrupted === undefined || last?.role !== 'assistant') return undefined
  const note = interrupted === 'kept' ? 'Interrupted — kept what arrived' : 'Interrupted — retried'
  return { id: last.id, note }
}
