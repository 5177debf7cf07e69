import type { ShownTurn } from '../../src/core/wire.ts'
import type { AssistantTurn } from '../../src/index.ts'
import type { ChatMessage, ChatStatus } from '../../src/react/index.ts'

/** What the page says when an answer stops streaming. */
export type AnswerEnd = {
  /** For the live region: what a screen reader hears, once. */
  announcement: string
  /** Shown on the answer that stayed, when a regenerate of it stopped or failed. */
  note?: string | undefined
}

/**
 * What the page says when an answer ends (`status` and `messages` as it ended). "Answer
 * complete." is said of an answer that arrived whole only: a regenerate of `replacing` that
 * stopped (`stoppedHere`: by this page's Stop or Esc) or failed leaves the previous answer in
 * place, and the page says so, on it and to a screen reader. A failure is also said by the
 * error's own alert.
 */
export function answerEnd(
  status: ChatStatus,
  messages: readonly ChatMessage[],
  replacing: ChatMessage | undefined,
  stoppedHere: boolean,
): AnswerEnd {
  const last = messages.at(-1)
  const kept =
    replacing?.turn !== undefined &&
    last?.role === 'assistant' &&
    sameTurn(last.turn, replacing.turn)
  if (kept && status === 'error') {
    return {
      announcement: 'The new answer failed. The previous answer is kept.',
      note: 'The new answer failed: the previous answer is kept.',
    }
  }
  if (kept && stoppedHere) {
    return {
      announcement: 'Stopped. The previous answer is kept.',
      note: 'Stopped: the previous answer is kept.',
    }
  }
  // Stopped elsewhere (another tab), or asked again to the very same answer: true either way.
  if (kept) return { announcement: 'The previous answer is kept.' }
  if (status === 'error') return { announcement: '' }
  return {
    announcement:
      last?.role === 'assistant' && last.status === 'done' ? 'Answer complete.' : 'Answer stopped.',
  }
}

/**
 * The same answer: the very turn (a stateless chat keeps it), or an equal one at the same place
 * among its versions (a durable conversation's stopped regenerate sends the answer it keeps again,
 * counting one version more when the stopped one is kept beside it). A regenerate that completed
 * is a new version, however like the old one it reads.
 */
function sameTurn(a: AssistantTurn | undefined, b: AssistantTurn): boolean {
  if (a === b) return true
  const place = (turn: ShownTurn) => turn.branch?.index ?? 0
  const unbranched = (turn: ShownTurn) => JSON.stringify({ ...turn, branch: 0 })
  return a !== undefined && place(a) === place(b) && unbranched(a) === unbranched(b)
}
