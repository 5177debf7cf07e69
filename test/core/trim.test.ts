import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Conversation, Turn } from '../../src/core/conversation.ts'
import { trimConversation } from '../../src/core/trim.ts'

const user = (content: string): Turn => ({ role: 'user', content })
const assistant = (text: string, extra: Partial<AssistantTurn> = {}): AssistantTurn => ({
  role: 'assistant',
  text,
  usage: { inputTokens: 0, outputTokens: 0 },
  stopReason: 'stop',
  items: { provider: 'p', model: 'm', thinkingMode: 'default', data: [{ signed: text }] },
  ...extra,
})
const call = { id: 'c', name: 'f', input: {} }
const tool: Turn = { role: 'tool', results: [{ callId: 'c', name: 'f', output: 'r' }] }

const conversation: Conversation = {
  system: 'sys',
  turns: [
    user('u1'),
    assistant('a1'),
    user('u2'),
    assistant('', { toolCalls: [call], stopReason: 'tool-calls' }),
    tool,
    assistant('a2'),
    user('u3'),
    assistant('a3'),
  ],
}

describe('trimConversation', () => {
  it('returns the same conversation when it already fits', () => {
    expect(trimConversation(conversation, { maxTurns: 8 })).toBe(conversation)
  })

  it('drops whole turns, oldest first, and starts with a user turn', () => {
    const trimmed = trimConversation(conversation, { maxTurns: 7 })
    expect(trimmed.turns).toEqual(conversation.turns.slice(2))
    expect(trimmed.system).toBe('sys')
  })

  it('never keeps a tool result without its call', () => {
    // 4 turns would start at the tool turn or the call; the cut moves to the next user turn.
    const trimmed = trimConversation(conversation, { maxTurns: 4 })
    expect(trimmed.turns).toEqual(conversation.turns.slice(6))
    expect(trimmed.turns[0]?.role).toBe('user')
  })

  it('keeps the turn objects and their items untouched', () => {
    const trimmed = trimConversation(conversation, { maxTurns: 6 })
    trimmed.turns.forEach((turn) => expect(conversation.turns).toContain(turn))
    expect(trimmed.turns[1]).toBe(conversation.turns[3])
  })

  it('trims by estimated tokens', () => {
    const estimate = () => 10
    expect(
      trimConversation(conversation, { maxTokens: 60, estimateTokens: estimate }).turns,
    ).toHaveLength(6)
    expect(
      trimConversation(conversation, { maxTokens: 59, estimateTokens: estimate }).turns,
    ).toHaveLength(2)
  })

  it('keeps the last exchange even when it alone does not fit', () => {
    expect(trimConversation(conversation, { maxTurns: 1 }).turns).toEqual(
      conversation.turns.slice(6),
    )
    expect(trimConversation(conversation, { maxTokens: 0 }).turns).toEqual(
      conversation.turns.slice(6),
    )
  })

  it('leaves a conversation without user turns alone', () => {
    const odd: Conversation = { turns: [assistant('x')] }
    expect(trimConversation(odd, { maxTurns: 0 })).toBe(odd)
  })
})
