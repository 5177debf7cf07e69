import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Turn, UserTurn } from '../../src/core/conversation.ts'
import {
  encodeTurns,
  matchesTag,
  sendableTurns,
  thinkingModeOf,
  type TurnEncoder,
} from '../../src/kit/replay.ts'

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

describe('encodeTurns: a conversation every provider accepts', () => {
  const plainTag = { provider: 'p', model: 'm', thinkingMode: 'default' }
  const encoder: TurnEncoder<unknown> = {
    user: (asked: UserTurn, i: number) => ({ user: asked.content, i }),
    tool: (_: unknown, i: number) => ({ tool: i }),
    replay: (_: unknown, __: unknown, i: number) => ({ replay: i }),
    reencode: (answer: AssistantTurn, i: number) => ({ assistant: answer.text, i }),
  }
  const stopped: AssistantTurn = {
    role: 'assistant',
    text: '',
    thinking: 'I was about to',
    usage: { inputTokens: 0, outputTokens: 0 },
    stopReason: 'aborted',
  }

  it('leaves out an answer stopped before its first word, and sends the questions around it as one', () => {
    const turns: Turn[] = [
      { role: 'user', content: 'First?' },
      stopped,
      { role: 'user', content: 'Second?' },
    ]
    expect(encodeTurns(turns, plainTag, encoder)).toEqual([{ user: 'First?\n\nSecond?', i: 0 }])
  })

  it('joins user turns with parts by their parts, and keeps every other turn with its index', () => {
    const image = { type: 'image' as const, url: 'https://x.test/a.png' }
    const turns: Turn[] = [
      { role: 'user', content: 'Look:' },
      { role: 'user', content: [image] },
      { ...stopped, text: 'A cat.' },
      { role: 'user', content: 'Thanks' },
    ]
    expect(encodeTurns(turns, plainTag, encoder)).toEqual([
      { user: [{ type: 'text', text: 'Look:' }, image], i: 0 },
      { assistant: 'A cat.', i: 2 },
      { user: 'Thanks', i: 3 },
    ])
  })

  it('answers a tool call the next turn leaves unanswered, so no call goes without a result', () => {
    const asked: AssistantTurn = {
      role: 'assistant',
      text: 'Checking.',
      toolCalls: [
        { id: 'a', name: 'weather', input: {} },
        { id: 'b', name: 'time', input: {} },
      ],
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'tool-calls',
    }
    const notGiven = (callId: string, name: string) => ({
      callId,
      name,
      output: 'No result was given for this call.',
      isError: true,
    })
    const partly: Turn[] = [
      { role: 'user', content: 'Weather and time?' },
      asked,
      { role: 'tool', results: [{ callId: 'a', name: 'weather', output: 'sunny' }] },
    ]
    expect(sendableTurns(partly).map(([kept]) => kept)).toEqual([
      partly[0],
      asked,
      {
        role: 'tool',
        results: [{ callId: 'a', name: 'weather', output: 'sunny' }, notGiven('b', 'time')],
      },
    ])
    const unanswered: Turn[] = [partly[0]!, asked, { role: 'user', content: 'Never mind.' }]
    expect(sendableTurns(unanswered)).toEqual([
      [partly[0], 0],
      [asked, 1],
      [{ role: 'tool', results: [notGiven('a', 'weather'), notGiven('b', 'time')] }, 1],
      [unanswered[2], 2],
    ])
  })
})
