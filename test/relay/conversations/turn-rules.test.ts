import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Turn } from '../../../src/core/conversation.ts'
import {
  displayTurn,
  regenerateBase,
  sizeRefusal,
  titleOf,
  validateCreateRequest,
  validateMessageRequest,
} from '../../../src/relay/conversations/turn-rules.ts'
import { resolveLimits } from '../../../src/relay/options.ts'

const limits = resolveLimits()
const user: Turn = { role: 'user', content: 'Hi' }
const answer: AssistantTurn = {
  role: 'assistant',
  text: 'Let me look.',
  toolCalls: [{ id: 'call_1', name: 'lookup', input: {} }],
  usage: { inputTokens: 1, outputTokens: 1 },
  stopReason: 'tool-calls',
  items: { provider: 'mock', model: 'echo', thinkingMode: 'none', data: [{ secret: true }] },
}

function refusal(body: unknown, stored: Turn[] = [], kind: 'message' | 'regenerate' = 'message') {
  const checked = validateMessageRequest(body, limits, stored, kind)
  if (checked.ok) throw new Error('expected the body to be refused')
  expect(checked.error.message.startsWith(`${checked.error.field} `)).toBe(true)
  return checked.error
}

describe('message and regenerate bodies', () => {
  it('takes a user turn with the call options of /v1/chat', () => {
    const checked = validateMessageRequest(
      { model: 'mock/echo', turn: user, maxTokens: 100, thinking: 'low' },
      limits,
      [],
      'message',
    )
    expect(checked).toEqual({
      ok: true,
      value: {
        model: 'mock/echo',
        turn: user,
        options: { thinking: 'low', maxTokens: 100 },
        serverTools: [],
        maxSteps: 8,
      },
    })
  })

  it('takes the server tools a message names and its most steps, and names a wrong one', () => {
    const check = (body: Record<string, unknown>) =>
      validateMessageRequest({ model: 'mock/echo', turn: user, ...body }, limits, [], 'message', [
        'clock',
        'save_note',
      ])
    expect(check({ serverTools: ['save_note', 'clock'], maxSteps: 3 })).toMatchObject({
      ok: true,
      value: { serverTools: ['save_note', 'clock'], maxSteps: 3 },
    })
    const fault = (body: Record<string, unknown>) => {
      const checked = check(body)
      if (checked.ok) throw new Error('expected the body to be refused')
      return checked.error
    }
    expect(fault({ serverTools: ['clock', 'rm_rf'] })).toEqual({
      field: 'serverTools[1]',
      message:
        "serverTools[1] 'rm_rf' is not a server tool of this relay (it has: clock, save_note)",
    })
    expect(fault({ serverTools: 'clock' }).field).toBe('serverTools')
    expect(fault({ serverTools: ['clock', 'clock'] }).field).toBe('serverTools[1]')
    expect(fault({ maxSteps: 0 }).field).toBe('maxSteps')
    expect(fault({ maxSteps: 101 }).field).toBe('maxSteps')
    expect(fault({ maxSteps: 2.5 }).field).toBe('maxSteps')
    // A client tool may not take a server tool's name: its calls would be the relay's to answer.
    const clash = { serverTools: ['clock'], tools: [{ name: 'clock', parameters: {} }] }
    expect(fault(clash).field).toBe('tools[0].name')
    // A relay without server tools names none.
    const none = validateMessageRequest(
      { model: 'mock/echo', turn: user, serverTools: ['clock'] },
      limits,
      [],
      'message',
    )
    expect(none.ok === false && none.error.message).toMatch(/it has: none/)
  })

  it('names the turn field at fault as the client sent it', () => {
    expect(refusal({ model: 'mock/echo', turn: { role: 'user', content: '' } }).field).toBe(
      'turn.content',
    )
    expect(refusal({ model: 'mock/echo', turn: { role: 'assistant', text: '' } }).field).toBe(
      'turn.role',
    )
    expect(refusal({ model: 'mock/echo' }).field).toBe('turn')
    expect(refusal({ model: 'mock/echo', turn: user, conversation: {} }).field).toBe('conversation')
    expect(refusal({ model: 'mock/echo', turn: user, providerOptions: {} }).field).toBe(
      'providerOptions',
    )
    expect(refusal({ model: 'mock/echo', turn: user }, [], 'regenerate').field).toBe('turn')
  })

  it('takes a tool turn only for the calls of the last assistant turn', () => {
    const result = { callId: 'call_1', name: 'lookup', output: { ok: true } }
    const tool = { role: 'tool', results: [result] }
    const checked = validateMessageRequest(
      { model: 'm/x', turn: tool },
      limits,
      [user, answer],
      'message',
    )
    expect(checked.ok && checked.value.turn).toEqual(tool)
    expect(refusal({ model: 'm/x', turn: tool }, [user]).field).toBe('turn')
    const stray = { role: 'tool', results: [{ ...result, callId: 'call_9' }] }
    expect(refusal({ model: 'm/x', turn: stray }, [user, answer]).field).toBe(
      'turn.results[0].callId',
    )
  })

  it('checks a turn after a stored turn with tool calls by the rule every conversation has', () => {
    const twice = {
      role: 'tool',
      results: [
        { callId: 'call_1', name: 'lookup', output: 1 },
        { callId: 'call_1', name: 'lookup', output: 2 },
      ],
    }
    expect(refusal({ model: 'm/x', turn: twice }, [user, answer])).toEqual({
      field: 'turn.results[1].callId',
      message: "turn.results[1].callId 'call_1' is answered already",
    })
    // A user turn goes on: the call it leaves open is sent as not given.
    expect(
      validateMessageRequest({ model: 'm/x', turn: user }, limits, [user, answer], 'message').ok,
    ).toBe(true)
    expect(validateMessageRequest({ model: 'm/x', turn: user }, limits, [user], 'message').ok).toBe(
      true,
    )
  })

  it('takes { system? } to create a conversation, and nothing else', () => {
    expect(validateCreateRequest({})).toEqual({ ok: true, value: {} })
    expect(validateCreateRequest({ system: 'Be brief.' })).toEqual({
      ok: true,
      value: { system: 'Be brief.' },
    })
    expect(validateCreateRequest({ system: 3 }).ok).toBe(false)
    expect(validateCreateRequest({ turns: [] }).ok).toBe(false)
  })
})

describe('the turns of a conversation', () => {
  it('regenerates the last user or tool turn, replacing the answer after it', () => {
    expect(regenerateBase([])).toBeNull()
    expect(regenerateBase([user])).toEqual({ turns: [user], replaces: false })
    expect(regenerateBase([user, answer])).toEqual({ turns: [user], replaces: true })
  })

  it('shows turns without their items', () => {
    const shown = displayTurn(answer)
    const { items: _items, ...rest } = answer
    expect(shown).not.toHaveProperty('items')
    expect(shown).toEqual(rest)
    expect(displayTurn(user)).toBe(user)
    expect(JSON.stringify(displayTurn(answer))).not.toContain('secret')
  })

  it('titles a conversation by its first user text, on one line and clipped', () => {
    expect(titleOf([])).toBeNull()
    expect(titleOf([{ role: 'user', content: '  Hello\n\nworld ' }])).toBe('Hello world')
    const long = titleOf([{ role: 'user', content: 'word '.repeat(40) }])!
    expect(long).toHaveLength(80)
    expect(long.endsWith('…')).toBe(true)
    const parts: Turn = {
      role: 'user',
      content: [
        { type: 'image', url: 'https://x.test/a.png' },
        { type: 'text', text: 'What is this?' },
      ],
    }
    expect(titleOf([parts])).toBe('What is this?')
  })

  it('refuses what would pass a size limit, naming the limit', () => {
    const limitsOf = { turns: 4, bytes: 100 }
    expect(sizeRefusal({ turns: 2, bytes: 10 }, { turns: 2, bytes: 10 }, limitsOf)).toBeNull()
    expect(sizeRefusal({ turns: 3, bytes: 10 }, { turns: 2, bytes: 10 }, limitsOf)?.limit).toBe(
      'turns',
    )
    const bytes = sizeRefusal({ turns: 0, bytes: 95 }, { turns: 2, bytes: 10 }, limitsOf)
    expect(bytes?.message).toContain('CONVERSATION_MAX_BYTES')
  })

  it('keeps room for the answer, about 4 bytes a token, and says when that room is what is missing', () => {
    const limitsOf = { turns: 4, bytes: 100 }
    expect(
      sizeRefusal({ turns: 0, bytes: 50 }, { turns: 2, bytes: 10, answerTokens: 10 }, limitsOf),
    ).toBeNull()
    const roomless = sizeRefusal(
      { turns: 0, bytes: 50 },
      { turns: 2, bytes: 10, answerTokens: 11 },
      limitsOf,
    )
    expect(roomless).toEqual({
      limit: 'bytes',
      message:
        'this conversation holds at most 100 bytes (CONVERSATION_MAX_BYTES), which leaves no ' +
        'room for an answer of up to 11 tokens: ask for fewer with maxTokens',
    })
    // The turn alone does not fit: the limit alone is named.
    const full = sizeRefusal(
      { turns: 0, bytes: 95 },
      { turns: 2, bytes: 10, answerTokens: 1 },
      limitsOf,
    )
    expect(full?.message).toBe('this conversation holds at most 100 bytes (CONVERSATION_MAX_BYTES)')
  })
})
