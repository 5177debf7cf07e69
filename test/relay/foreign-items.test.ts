import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Conversation } from '../../src/core/conversation.ts'
import { dropForeignItems } from '../../src/relay/foreign-items.ts'

const tag = { provider: 'anthropic', model: 'claude', thinkingMode: 'high' }
const answer = (items: Partial<typeof tag> = {}): AssistantTurn => ({
  role: 'assistant',
  text: 'Hello.',
  usage: { inputTokens: 1, outputTokens: 1 },
  stopReason: 'stop',
  items: { ...tag, ...items, data: [{ signed: true }], seal: 's1.x.y' },
})
const user = { role: 'user' as const, content: 'Hi' }

describe('dropForeignItems', () => {
  it('keeps the conversation as it is when every turn’s items are the call’s own', () => {
    const conversation: Conversation = { turns: [user, answer(), user] }
    expect(dropForeignItems(conversation, tag)).toEqual({ conversation, warnings: [] })
    expect(dropForeignItems(conversation, tag).conversation).toBe(conversation)
  })

  it.each([
    ['another provider', { provider: 'openai' }, 'openai/claude (thinking high)'],
    ['another model', { model: 'haiku' }, 'anthropic/haiku (thinking high)'],
    ['another thinking mode', { thinkingMode: 'low' }, 'anthropic/claude (thinking low)'],
  ])('drops the items %s made, saying which turn and why', (_, other, made) => {
    const conversation: Conversation = { system: 'Be brief.', turns: [user, answer(other), user] }
    const { conversation: sent, warnings } = dropForeignItems(conversation, tag)
    const { items: _items, ...plain } = answer(other)
    expect(sent).toEqual({ system: 'Be brief.', turns: [user, plain, user] })
    expect(warnings).toEqual([
      `conversation.turns[1].items dropped: ${made} made them and this call goes to anthropic/claude (thinking high), so the turn was sent from its text and tool calls`,
    ])
    // The conversation given is left as it was.
    expect(conversation.turns[1]).toHaveProperty('items')
  })
})
