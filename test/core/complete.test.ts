import { type } from 'arktype'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { complete } from '../../src/core/complete.ts'
import { completeJson } from '../../src/core/complete-json.ts'
import { parseNearJson } from '../../src/core/json-repair.ts'
import type { Event } from '../../src/core/events.ts'
import { mock } from '../../src/providers/mock/index.ts'

const ask = { turns: [{ role: 'user' as const, content: 'hi' }] }

describe('complete', () => {
  it('resolves to the done turn, with text always a string', async () => {
    const events: Event[] = []
    const turn = await complete(mock({ script: [{ thinking: 't', text: 'hello' }] }), ask, {
      onEvent: (e) => events.push(e),
    })
    expect(turn.text).toBe('hello')
    expect(turn.thinking).toBe('t')
    expect(events.at(-1)).toEqual({ type: 'done', turn })
    const empty = await complete(mock({ script: [{ toolCalls: [{ name: 'f', input: {} }] }] }), ask)
    expect(empty.text).toBe('')
  })

  it('rejects with the stream error and never resolves a partial turn', async () => {
    const adapter = mock({
      script: [{ text: 'partial text', fail: { kind: 'server', afterEvents: 1 } }],
    })
    await expect(complete(adapter, ask)).rejects.toMatchObject({ kind: 'server' })
  })

  it('passes its call options to the stream', async () => {
    const adapter = mock()
    await complete(adapter, ask, { thinking: 'off', maxTokens: 10 })
    expect(adapter.calls[0]?.options).toMatchObject({ thinking: 'off', maxTokens: 10 })
  })
})

describe('parseNearJson', () => {
  const table: [string, string, unknown][] = [
    ['plain JSON', '{"a":1}', { a: 1 }],
    ['a code fence', '```json\n{"a": [1, 2]}\n```', { a: [1, 2] }],
    ['a fence without a language', 'Here:\n```\n[1,2]\n```\nDone.', [1, 2]],
    ['prose around the object', 'Sure! Here it is: {"a": "b"} Hope that helps.', { a: 'b' }],
    ['trailing commas', '{"a": [1, 2,], "b": {"c": 3,},}', { a: [1, 2], b: { c: 3 } }],
    ['brackets and commas inside strings', 'x {"a": "},]{", "b": ",}"} y', { a: '},]{', b: ',}' }],
    ['escaped quotes in strings', '{"a": "say \\"hi\\",}"}', { a: 'say "hi",}' }],
    ['prose with a bracket before the value', 'The results [below]: {"a": 1}', { a: 1 }],
    ['an unbalanced bracket before the value', 'Note (see [1: {"a": 2} end', { a: 2 }],
  ]
  for (const [name, input, expected] of table) {
    it(`repairs ${name}`, () => expect(parseNearJson(input)).toEqual({ ok: true, value: expected }))
  }

  it('fails with a reason when there is no JSON', () => {
    expect(parseNearJson('no json here')).toEqual({
      ok: false,
      reason: 'no JSON object or array found in the output',
    })
    expect(parseNearJson('{"a": }').ok).toBe(false)
  })
})

describe('completeJson', () => {
  const answer = (text: string) => mock({ script: [{ text }] })

  it('takes the first value in the answer that matches the schema, not the first that parses', async () => {
    const { value } = await completeJson(
      answer('Steps [1, 2] done. Answer: {"city": "Oslo"}'),
      { turns: [{ role: 'user', content: 'City?' }] },
      { schema: z.object({ city: z.string() }) },
    )
    expect(value).toEqual({ city: 'Oslo' })
  })

  it('asks for JSON mode with the schema and returns the validated value (zod)', async () => {
    const schema = z.object({ city: z.string(), days: z.number() })
    const adapter = answer('```json\n{"city": "Oslo", "days": 3,}\n```')
    const { value, turn } = await completeJson(adapter, ask, { schema, name: 'trip' })
    expect(value).toEqual({ city: 'Oslo', days: 3 })
    expect(turn.text).toContain('Oslo')
    const format = adapter.calls[0]?.options.responseFormat
    expect(format?.type).toBe('json')
    expect(format?.name).toBe('trip')
    expect(format?.schema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' } },
    })
  })

  it('names the failing path when the value does not match (zod)', async () => {
    const schema = z.object({ items: z.array(z.object({ price: z.number() })) })
    const adapter = answer('{"items": [{"price": 1}, {"price": 2}, {"price": "3"}]}')
    await expect(completeJson(adapter, ask, { schema })).rejects.toMatchObject({
      kind: 'invalid-output',
      message: expect.stringMatching(/items\[2\]\.price/),
    })
  })

  it('validates with valibot and arktype too', async () => {
    const vSchema = v.object({ n: v.number() })
    await expect(completeJson(answer('{"n": 1}'), ask, { schema: vSchema })).resolves.toMatchObject(
      { value: { n: 1 } },
    )
    await expect(
      completeJson(answer('{"n": "x"}'), ask, { schema: vSchema }),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/at n:/),
    })
    const aSchema = type({ n: 'number' })
    await expect(completeJson(answer('{"n": 2}'), ask, { schema: aSchema })).resolves.toMatchObject(
      { value: { n: 2 } },
    )
    await expect(
      completeJson(answer('{"n": true}'), ask, { schema: aSchema }),
    ).rejects.toMatchObject({
      kind: 'invalid-output',
      message: expect.stringMatching(/at n:/),
    })
  })

  it('fails with invalid-output when the answer is not JSON at all', async () => {
    await expect(completeJson(answer('I cannot do that.'), ask)).rejects.toMatchObject({
      kind: 'invalid-output',
      retryable: false,
    })
  })

  it('returns the parsed value without a schema, and sends an explicit JSON Schema as it is', async () => {
    const adapter = answer('[1, 2, 3]')
    const jsonSchema = { type: 'array', items: { type: 'number' } }
    await expect(completeJson(adapter, ask, { jsonSchema })).resolves.toMatchObject({
      value: [1, 2, 3],
    })
    expect(adapter.calls[0]?.options.responseFormat?.schema).toBe(jsonSchema)
  })
})
