import { describe, expect, it } from 'vitest'
import type { OpaqueItems } from '../../src/core/conversation.ts'
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
  it('verifies the seal it made, also after a JSON round trip with keys reordered', async () => {
    const sealer = createSealer(['key-one'])
    const seal = await sealer.seal(items)
    expect(seal).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const back = JSON.parse(
      JSON.stringify({
        seal,
        data: items.data,
        thinkingMode: 'high',
        model: 'claude-x',
        provider: 'anthropic',
      }),
    ) as OpaqueItems
    expect(await sealer.verify(back)).toBe(true)
  })

  it('refuses a seal when any part of the tag or the data changed', async () => {
    const sealer = createSealer(['key-one'])
    const seal = await sealer.seal(items)
    const changes: Partial<OpaqueItems>[] = [
      { provider: 'openai' },
      { model: 'claude-y' },
      { thinkingMode: 'low' },
      {
        data: [
          { type: 'thinking', thinking: 'hmm', signature: 'abd' },
          { type: 'text', text: 'Hi' },
        ],
      },
      { data: [items.data[1], items.data[0]] },
    ]
    for (const change of changes) {
      expect(await sealer.verify({ ...items, ...change, seal })).toBe(false)
    }
  })

  it('refuses a missing, malformed or foreign seal', async () => {
    const sealer = createSealer(['key-one'])
    expect(await sealer.verify(items)).toBe(false)
    expect(await sealer.verify({ ...items, seal: 'not base64!' })).toBe(false)
    const foreign = await createSealer(['other-key']).seal(items)
    expect(await sealer.verify({ ...items, seal: foreign })).toBe(false)
  })

  it('rotates: the first key signs, every key verifies', async () => {
    const old = await createSealer(['old-key']).seal(items)
    const rotated = createSealer(['new-key', 'old-key'])
    expect(await rotated.verify({ ...items, seal: old })).toBe(true)
    const fresh = await rotated.seal(items)
    expect(await createSealer(['new-key']).verify({ ...items, seal: fresh })).toBe(true)
    expect(await createSealer(['old-key']).verify({ ...items, seal: fresh })).toBe(false)
  })

  it('refuses an empty key list or an empty key', () => {
    expect(() => createSealer([])).toThrow(/non-empty/)
    expect(() => createSealer(['ok', ''])).toThrow(/non-empty/)
  })
})
