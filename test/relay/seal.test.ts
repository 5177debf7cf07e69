import { describe, expect, it } from 'vitest'
import type { AssistantTurn, OpaqueItems } from '../../src/core/conversation.ts'
import { canonicalJson, createSealer } from '../../src/relay/seal.ts'

const items: OpaqueItems = {
  provider: 'anthropic',
  model: 'claude-x',
  thinkingMode: 'high',
  data: [
    { type: 'thinking', thinking: 'hmm', signature: 'abc' },
    { type: 'text', text: 'Hi' },
  ],
}

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }, 3] })).toBe('{"a":[{"c":2,"d":1},3],"b":1}')
  })

  it('leaves out undefined members as JSON.stringify does', () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}')
  })

  it('treats an own __proto__ key as data', () => {
    const parsed: unknown = JSON.parse('{"__proto__":{"x":1},"a":2}')
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"x":1},"a":2}')
  })
})

describe('createSealer', () => {
  const keyOne = 'key-one-Qm4Rt8Wz2Xc6Vb0Nk5Lp7Ds9Hf'
  const keyTwo = 'key-two-Hj5Ls9Pd3Fg7Ty1Ue8Mw2Zx4Cv'
  const turn: AssistantTurn = {
    role: 'assistant',
    text: 'Hi',
    thinking: 'hmm',
    toolCalls: [{ id: 'call_1', name: 'lookup', input: { q: 'x' } }],
    usage: { inputTokens: 3, outputTokens: 2 },
    stopReason: 'tool-calls',
    items,
  }
  const sealed = async (sealer: ReturnType<typeof createSealer>, of = turn) => ({
    ...of,
    items: { ...of.items!, seal: await sealer.seal(of) },
  })

  it('checks the seal it made, also after a JSON round trip with keys reordered', async () => {
    const sealer = createSealer([keyOne])
    const back = await sealed(sealer)
    expect(back.items.seal).toMatch(/^s1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{43}$/)
    const reordered = JSON.parse(
      JSON.stringify({
        items: {
          seal: back.items.seal,
          data: items.data,
          thinkingMode: 'high',
          model: 'claude-x',
          provider: 'anthropic',
        },
        toolCalls: [{ input: { q: 'x' }, name: 'lookup', id: 'call_1' }],
        thinking: 'hmm',
        text: 'Hi',
        role: 'assistant',
        usage: { outputTokens: 9, inputTokens: 9 },
        stopReason: 'stop',
      }),
    ) as AssistantTurn
    // Usage and stop reason are not covered: only what replays is.
    expect(await sealer.check(reordered)).toBe('valid')
  })

  it('finds any change to the text, thinking, tool calls, tag or data', async () => {
    const sealer = createSealer([keyOne])
    const back = await sealed(sealer)
    const changes: Partial<AssistantTurn>[] = [
      { text: 'Hi!' },
      { thinking: undefined },
      { thinking: 'hmm.' },
      { toolCalls: [] },
      { toolCalls: [{ id: 'call_1', name: 'lookup', input: { q: 'y' } }] },
      { items: { ...back.items, provider: 'openai' } },
      { items: { ...back.items, model: 'claude-y' } },
      { items: { ...back.items, thinkingMode: 'low' } },
      { items: { ...back.items, data: [items.data[1], items.data[0]] } },
    ]
    for (const change of changes) {
      expect(await sealer.check({ ...back, ...change })).toBe('tampered')
    }
  })

  it('calls a missing, malformed, old-format or foreign seal unsealed', async () => {
    const sealer = createSealer([keyOne])
    expect(await sealer.check(turn)).toBe('unsealed')
    const seals = ['not a seal', 'A'.repeat(43), await createSealer([keyTwo]).seal(turn)]
    for (const seal of seals) {
      expect(await sealer.check({ ...turn, items: { ...items, seal } })).toBe('unsealed')
    }
  })

  it('rotates: the first key signs, every key checks, a retired key is unsealed', async () => {
    const old = await sealed(createSealer([keyTwo]))
    const rotated = createSealer([keyOne, keyTwo])
    expect(await rotated.check(old)).toBe('valid')
    const fresh = await sealed(rotated)
    expect(await createSealer([keyOne]).check(fresh)).toBe('valid')
    expect(await createSealer([keyTwo]).check(fresh)).toBe('unsealed')
  })

  it('refuses an empty key list and keys shorter than 32 characters', () => {
    expect(() => createSealer([])).toThrow(/non-empty list of secrets of at least 32/)
    expect(() => createSealer([keyOne, 'short'])).toThrow(/at least 32 characters/)
  })
})
