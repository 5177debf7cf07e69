import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Conversation } from '../../src/core/conversation.ts'
import { foreignItems } from '../../src/relay/foreign-items.ts'

const tag = { provider: 'anthropic', model: 'claude', thinkingMode: 'high' }
const answer = (items: Partial<typeof tag> = {}): AssistantTurn => ({
  role: 'assistant',
  text: 'Hello.',
  usage: { inputTokens: 1, outputTokens: 1 },
  stopReason: 'stop',
  items: { ...tag, ...items, data: [{ signed: true }], seal: 's1.x.y' },
})
const user = { role: 'user' as const, content: 'Hi' }

describe('foreignItems', () => {
  it('keeps the conversation as it is when every turn’s items are the call’s own', () => {
    const conversation: Conversation = { turns: [user, answer(), user] }
    expect(foreignItems(conversation, tag, true)).toEqual({ conversation, notes: [] })
    expect(foreignItems(conversation, tag, true).conversation).toBe(conversation)
  })

  it.each([
    ['another provider', { provider: 'openai' }],
    ['another model', { model: 'haiku' }],
    ['another thinking mode', { thinkingMode: 'low' }],
  ])('drops the items %s made, saying which turn and why', (_, other) => {
    const conversation: Conversation = { system: 'Be brief.', turns: [user, answer(other), user] }
    const { conversation: sent, notes } = foreignItems(conversation, tag, true)
    const { items: _items, ...plain } = answer(other)
    expect(sent).toEqual({ system: 'Be brief.', turns: [user, plain, user] })
    // The call's tag only: the turn's own may be the client's text.
    expect(notes).toEqual([
      'conversation.turns[1].items dropped: made by another provider, model or thinking mode than anthropic/claude (thinking high), so the turn was sent from its text and tool calls',
    ])
    // The conversation given is left as it was.
    expect(conversation.turns[1]).toHaveProperty('items')
  })

  it('keeps the items where the dialect leaves them to the adapter, and notes them', () => {
    const conversation: Conversation = { turns: [user, answer({ model: 'haiku' }), user] }
    const { conversation: sent, notes } = foreignItems(conversation, tag, false)
    expect(sent).toBe(conversation)
    expect(notes).toEqual([
      'conversation.turns[1].items not replayed: made by another provider, model or thinking mode than anthropic/claude (thinking high), so the turn was sent from its text and tool calls',
    ])
  })
})
