import { describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import {
  createThinkingTimer,
  withThinkingTime,
} from '../../../src/relay/conversations/thinking-timer.ts'
import { modelTurn } from '../../../src/relay/conversations/turn-rules.ts'

/** A clock the test moves. */
function clock() {
  let now = 0
  return { now: () => now, at: (ms: number) => void (now = ms) }
}

const turn: AssistantTurn = {
  role: 'assistant',
  text: 'Hello',
  thinking: 'Hm.',
  usage: { inputTokens: 1, outputTokens: 2 },
  stopReason: 'stop',
}

describe('how long an answer thought', () => {
  it('runs from its first thinking event to the first event that is not thinking', () => {
    const { now, at } = clock()
    const timer = createThinkingTimer(now)
    at(10)
    timer.note('thinking')
    at(400)
    timer.note('thinking')
    at(1210.6)
    timer.note('text')
    at(5000)
    timer.note('thinking')
    timer.note('done')
    expect(timer.thinkingMs()).toBe(1201)
  })

  it('ends at a tool call or at done, and runs on to now while nothing else came (a stop)', () => {
    const { now, at } = clock()
    const toTool = createThinkingTimer(now)
    const toDone = createThinkingTimer(now)
    const stopped = createThinkingTimer(now)
    for (const timer of [toTool, toDone, stopped]) timer.note('thinking')
    at(300)
    toTool.note('tool-call')
    toDone.note('done')
    at(800)
    expect([toTool.thinkingMs(), toDone.thinkingMs(), stopped.thinkingMs()]).toEqual([
      300, 300, 800,
    ])
  })

  it('is undefined for an answer that did not think', () => {
    const timer = createThinkingTimer(clock().now)
    timer.note('text')
    timer.note('done')
    expect(timer.thinkingMs()).toBeUndefined()
    expect(withThinkingTime(turn, undefined)).toBe(turn)
  })

  it('goes with the turn the browser sees, and never to a provider', () => {
    const shown = withThinkingTime(turn, 1200)
    expect(shown).toEqual({ ...turn, thinkingMs: 1200 })
    expect(modelTurn(shown)).toEqual(turn)
    const user = { role: 'user', content: 'Hi' } as const
    expect(modelTurn(user)).toBe(user)
    expect(modelTurn(turn)).toBe(turn)
  })
})
