import { describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../src/index.ts'
import type { ChatMessage } from '../../src/react/index.ts'
import { answerEnd } from '../../demo/src/answer-end.ts'

const question: ChatMessage = {
  id: 'm0',
  role: 'user',
  text: 'Hi',
  thinking: '',
  toolCalls: [],
  status: 'done',
}
const turn: AssistantTurn = {
  role: 'assistant',
  text: 'Hello',
  usage: { inputTokens: 1, outputTokens: 1 },
  stopReason: 'stop',
}
const answer = (of: AssistantTurn, id = 'm1'): ChatMessage => ({
  id,
  role: 'assistant',
  text: of.text,
  thinking: '',
  toolCalls: [],
  status: of.stopReason === 'aborted' ? 'stopped' : 'done',
  turn: of,
})
const previous = answer(turn)

describe('what the page says when an answer ends', () => {
  it('says a stopped regenerate kept the previous answer, never "Answer complete."', () => {
    // A stateless chat keeps the very turn; a durable conversation sends an equal one again.
    for (const kept of [previous, answer(JSON.parse(JSON.stringify(turn)) as AssistantTurn)]) {
      expect(answerEnd('ready', [question, kept], previous, true)).toEqual({
        announcement: 'Stopped. The previous answer is kept.',
        note: 'Stopped: the previous answer is kept.',
      })
    }
  })

  it('says a stopped regenerate kept the previous answer that comes back with one version more', () => {
    // A durable conversation keeps the stopped answer a version away: the one it keeps counts it.
    const versioned = (index: number, count: number) =>
      answer({ ...turn, branch: { index, count } } as AssistantTurn)
    for (const [before, after] of [
      [previous, versioned(0, 2)],
      [versioned(1, 2), versioned(1, 3)],
    ] as const) {
      expect(answerEnd('ready', [question, after], before, true)).toEqual({
        announcement: 'Stopped. The previous answer is kept.',
        note: 'Stopped: the previous answer is kept.',
      })
    }
  })

  it('calls a regenerated answer complete though it reads as the one it replaced', () => {
    const again = (index: number, count: number) =>
      answer({ ...turn, branch: { index, count } } as AssistantTurn)
    expect(answerEnd('ready', [question, again(1, 2)], previous, true).announcement).toBe(
      'Answer complete.',
    )
    expect(answerEnd('ready', [question, again(2, 3)], again(1, 2), false).announcement).toBe(
      'Answer complete.',
    )
  })

  it('says a failed regenerate kept the previous answer', () => {
    expect(answerEnd('error', [question, previous], previous, false)).toEqual({
      announcement: 'The new answer failed. The previous answer is kept.',
      note: 'The new answer failed: the previous answer is kept.',
    })
  })

  it('says a regenerate stopped elsewhere kept the previous answer, without a note', () => {
    expect(answerEnd('ready', [question, previous], previous, false)).toEqual({
      announcement: 'The previous answer is kept.',
    })
  })

  it('calls a new answer complete, also one that came before a stop could take effect', () => {
    const fresh = answer({ ...turn, text: 'Hello again' })
    expect(answerEnd('ready', [question, fresh], previous, true).announcement).toBe(
      'Answer complete.',
    )
    expect(answerEnd('ready', [question, fresh], undefined, false).announcement).toBe(
      'Answer complete.',
    )
    const stopped = answer({ ...turn, stopReason: 'aborted' })
    expect(answerEnd('ready', [question, stopped], undefined, true).announcement).toBe(
      'Answer stopped.',
    )
    expect(answerEnd('error', [question], undefined, false).announcement).toBe('')
  })
})
