import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Turn } from '../../src/core/conversation.ts'
import { encodeTurns, matchesTag, thinkingModeOf } from '../../src/kit/replay.ts'

const tag = { provider: 'p', model: 'm', thinkingMode: 'high' }
const turn = (items?: AssistantTurn['items']): AssistantTurn => ({
  role: 'assistant',
  text: 't',
  usage: { inputTokens: 0, outputTokens: 0 },
  stopReason: 'stop',
  items,
})

describe('replay policy', () => {
  it('names thinking modes stably', () => {
    expect(thinkingModeOf(undefined)).toBe('default')
    expect(thinkingModeOf('off')).toBe('off')
    expect(thinkingModeOf({ budgetTokens: 2048 })).toBe('budget-2048')
  })

  it('matches only the same provider, model and thinking mode', () => {
    const data = [{}]
    expect(matchesTag({ ...tag, data }, tag)).toBe(true)
    expect(matchesTag({ ...tag, provider: 'q', data }, tag)).toBe(false)
    expect(matchesTag({ ...tag, model: 'n', data }, tag)).toBe(false)
    expect(matchesTag({ ...tag, thinkingMode: 'low', data }, tag)).toBe(false)
    expect(matchesTag(undefined, tag)).toBe(false)
  })

  it('replays matching turns verbatim and re-encodes every other assistant turn', () => {
    const own = turn({ ...tag, data: [{ sig: 'x' }] })
    const foreign = turn({ ...tag, model: 'other', data: [{ sig: 'y' }] })
    const handWritten = turn()
    const turns: Turn[] = [
      { role: 'user', content: 'a' },
      own,
      { role: 'tool', results: [] },
      foreign,
      handWritten,
    ]
    const out = encodeTurns(turns, tag, {
      user: (_, i) => `user@${i}`,
      tool: (_, i) => `tool@${i}`,
      replay: (items, t, i) => `replay@${i}:${JSON.stringify(items.data)}:${t === own}`,
      reencode: (_, i) => `reencode@${i}`,
    })
    expect(out).toEqual([
      'user@0',
      'replay@1:[{"sig":"x"}]:true',
      'tool@2',
      'reencode@3',
      'reencode@4',
    ])
  })
})
