import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../../helpers/property.ts'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import {
  decodeReasoningDetails,
  encodeReasoningDetails,
} from '../../../src/relay/completions/index.ts'

const turn: AssistantTurn = {
  role: 'assistant',
  text: 'Héllo 👋, wörld',
  thinking: 'Greeting — in UTF-8 😀',
  toolCalls: [{ id: 'c1', name: 'f', input: { a: [1, { b: null }], s: '\u2028' } }],
  usage: { inputTokens: 1, outputTokens: 2 },
  stopReason: 'tool-calls',
  items: {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    thinkingMode: 'adaptive',
    data: [{ type: 'thinking', signature: 'abc' }, 'raw', 3],
    seal: 's1.AAAAAAAA.mac',
  },
  warnings: ['not carried'],
}

/** `reasoning_details` holding `record` as this relay would encode it. */
function detailsOf(record: unknown) {
  const bytes = new TextEncoder().encode(JSON.stringify(record))
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  const data = btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
  return [{ type: 'reasoning.encrypted', format: 'thinkwire-v1', data }]
}

const record = {
  text: 't',
  items: { provider: 'p', model: 'm', thinkingMode: 'off', data: [], seal: 's' },
}

describe('encodeReasoningDetails', () => {
  it('is undefined for a turn without a seal', () => {
    expect(encodeReasoningDetails({ ...turn, items: undefined })).toBeUndefined()
    expect(
      encodeReasoningDetails({ ...turn, items: { ...turn.items!, seal: undefined } }),
    ).toBeUndefined()
  })

  it('writes one thinkwire-v1 entry of base64url text', () => {
    const details = encodeReasoningDetails(turn)!
    expect(details).toHaveLength(1)
    expect(details[0]).toMatchObject({ type: 'reasoning.encrypted', format: 'thinkwire-v1' })
    expect(details[0]!.data).toMatch(/^[A-Za-z0-9_-]+$/)
  })

  it('round-trips exactly what the seal covers, UTF-8 included', () => {
    expect(decodeReasoningDetails(encodeReasoningDetails(turn))).toEqual({
      text: turn.text,
      thinking: turn.thinking,
      toolCalls: turn.toolCalls,
      items: turn.items,
    })
  })

  it('leaves out thinking and tool calls the turn does not have', () => {
    const plain: AssistantTurn = { ...turn, thinking: undefined, toolCalls: undefined }
    expect(decodeReasoningDetails(encodeReasoningDetails(plain))).toEqual({
      text: turn.text,
      items: turn.items,
    })
  })

  it(
    'round-trips any JSON text, thinking, inputs and items data',
    () => {
      const text = fc.string({ unit: 'binary' })
      fc.assert(
        fc.property(
          text,
          fc.option(text, { nil: undefined }),
          fc.array(
            fc.record({
              id: text.filter((s) => s !== ''),
              name: text.filter((s) => s !== ''),
              input: fc.jsonValue(),
            }),
            { maxLength: 3 },
          ),
          fc.array(fc.jsonValue(), { maxLength: 3 }),
          (answer, thinking, toolCalls, data) => {
            const input: AssistantTurn = {
              ...turn,
              text: answer,
              thinking,
              toolCalls,
              items: { ...turn.items!, data },
            }
            const decoded = decodeReasoningDetails(encodeReasoningDetails(input))
            // JSON has no -0: compare as JSON, which is what crosses the wire.
            expect(JSON.parse(JSON.stringify(decoded))).toEqual(
              JSON.parse(JSON.stringify({ text: answer, thinking, toolCalls, items: input.items })),
            )
          },
        ),
        { seed: 15, numRuns: 300, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )
})

describe('decodeReasoningDetails', () => {
  it('reads the first thinkwire-v1 entry among others', () => {
    const details = [{ type: 'reasoning.text', text: 'x' }, ...detailsOf(record), ...detailsOf({})]
    expect(decodeReasoningDetails(details)).toEqual(record)
  })

  it('rebuilds the record from its known fields only', () => {
    const extra = JSON.parse(
      '{"text":"t","extra":1,"__proto__":{"polluted":true},"items":{"provider":"p","model":"m","thinkingMode":"off","data":[],"seal":"s","x":2}}',
    )
    const decoded = decodeReasoningDetails(detailsOf(extra))
    expect(decoded).toEqual(record)
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype)
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })

  it.each([
    ['no array', { type: 'reasoning.encrypted', format: 'thinkwire-v1', data: 'e30' }],
    ['no entry', [{ type: 'reasoning.encrypted', format: 'other', data: 'e30' }]],
    ['data not a string', [{ type: 'reasoning.encrypted', format: 'thinkwire-v1', data: 3 }]],
    ['not base64url', [{ type: 'reasoning.encrypted', format: 'thinkwire-v1', data: 'e3+/' }]],
    ['a bad base64 length', [{ type: 'reasoning.encrypted', format: 'thinkwire-v1', data: 'e' }]],
    ['invalid UTF-8', [{ type: 'reasoning.encrypted', format: 'thinkwire-v1', data: '_w' }]],
    ['not JSON', detailsOf('x').map((d) => ({ ...d, data: 'bm90IGpzb24' }))],
    ['not an object', detailsOf([record])],
    ['text not a string', detailsOf({ ...record, text: 1 })],
    ['thinking not a string', detailsOf({ ...record, thinking: [] })],
    ['toolCalls not an array', detailsOf({ ...record, toolCalls: {} })],
    ['a tool call without input', detailsOf({ ...record, toolCalls: [{ id: 'a', name: 'b' }] })],
    [
      'a tool call with an empty id',
      detailsOf({ ...record, toolCalls: [{ id: '', name: 'b', input: 1 }] }),
    ],
    ['no items', detailsOf({ text: 't' })],
    ['items without a seal', detailsOf({ ...record, items: { ...record.items, seal: undefined } })],
    [
      'items with an empty provider',
      detailsOf({ ...record, items: { ...record.items, provider: '' } }),
    ],
    ['items data not an array', detailsOf({ ...record, items: { ...record.items, data: {} } })],
  ])('is undefined for %s', (_, value) => {
    expect(decodeReasoningDetails(value)).toBeUndefined()
  })

  it(
    'never throws, whatever it is given',
    () => {
      const entry = fc.record({
        type: fc.constantFrom('reasoning.encrypted', 'x'),
        format: fc.constantFrom('thinkwire-v1', 'y'),
        data: fc.oneof(
          fc.string(),
          fc.base64String(),
          fc.jsonValue().map((v) => detailsOf(v)[0]!.data),
        ),
      })
      fc.assert(
        fc.property(fc.oneof(fc.jsonValue(), fc.array(entry, { maxLength: 3 })), (value) => {
          decodeReasoningDetails(value)
        }),
        { seed: 15, numRuns: 1000, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )
})
