import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { JSONSchema } from '../../../src/core/adapter.ts'
import { toolArguments } from '../../../src/providers/mock/tool-arguments.ts'

const NOW = new Date('2026-12-06T07:00:00.000Z')

/** The arguments made for `schema` from `text`, which must validate against the schema. */
function valid(schema: JSONSchema, text: string): unknown {
  const input = toolArguments(schema, { text, now: NOW })
  const checked = z.fromJSONSchema(schema).safeParse(input)
  if (!checked.success) {
    throw new Error(`${JSON.stringify(input)} does not fit: ${checked.error.message}`)
  }
  return input
}

const object = (properties: JSONSchema, required = Object.keys(properties)): JSONSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
})

describe('toolArguments', () => {
  it('fills a required string with the text, or with its quoted phrase when it has one', () => {
    const schema = object({ city: { type: 'string' } })
    expect(valid(schema, 'for Paris')).toEqual({ city: 'for Paris' })
    expect(valid(schema, 'what is it like in "Paris" today')).toEqual({ city: 'Paris' })
  })

  it('gives quoted phrases to string properties in turn, the last one repeating', () => {
    const schema = object({
      from: { type: 'string' },
      to: { type: 'string' },
      via: { type: 'string' },
    })
    expect(valid(schema, 'a trip from “Oslo” to "Rome"')).toEqual({
      from: 'Oslo',
      to: 'Rome',
      via: 'Rome',
    })
  })

  it('takes the value the text names for a property, also for an optional one', () => {
    const schema = object(
      { city: { type: 'string' }, days: { type: 'integer' }, note: { type: 'string' } },
      ['city'],
    )
    expect(valid(schema, 'city: Bergen, days=3. Thanks')).toEqual({ city: 'Bergen', days: 3 })
    expect(valid(schema, 'note: "bring, an umbrella" city: Oslo.')).toEqual({
      city: 'Oslo',
      note: 'bring, an umbrella',
    })
  })

  it('leaves out optional properties the text does not name, unless they have a default or const', () => {
    const schema = object(
      {
        city: { type: 'string' },
        unit: { type: 'string', default: 'celsius' },
        v: { const: 2 },
        extra: { type: 'string' },
      },
      ['city'],
    )
    expect(valid(schema, 'Paris')).toEqual({ city: 'Paris', unit: 'celsius', v: 2 })
  })

  it('picks the enum member the text mentions, else the first', () => {
    const schema = object({ unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } })
    expect(valid(schema, 'in Fahrenheit please')).toEqual({ unit: 'fahrenheit' })
    expect(valid(schema, 'in kelvin')).toEqual({ unit: 'celsius' })
    expect(valid(schema, 'unit: fahrenheit')).toEqual({ unit: 'fahrenheit' })
  })

  it('fills numbers from the numbers of the text in turn, kept within their bounds', () => {
    const schema = object({
      lat: { type: 'number' },
      lon: { type: 'number' },
      days: { type: 'integer', minimum: 1, maximum: 7 },
    })
    expect(valid(schema, 'at 59.9, 10.75 for 30 days')).toEqual({ lat: 59.9, lon: 10.75, days: 7 })
  })

  it('makes a number the minimum, or 0, when the text has none', () => {
    const schema = object({
      count: { type: 'integer' },
      page: { type: 'integer', minimum: 1 },
      above: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
      even: { type: 'integer', minimum: 3, multipleOf: 2 },
    })
    expect(valid(schema, 'no numbers here')).toEqual({ count: 0, page: 1, above: 0.5, even: 4 })
  })

  it('gives date and time strings the current time, and other formats a valid placeholder', () => {
    const schema = object({
      at: { type: 'string', format: 'date-time' },
      day: { type: 'string', format: 'date' },
      time: { type: 'string', format: 'time' },
      email: { type: 'string', format: 'email' },
      site: { type: 'string', format: 'uri' },
      id: { type: 'string', format: 'uuid' },
    })
    expect(valid(schema, 'remind me')).toEqual({
      at: '2026-12-06T07:00:00.000Z',
      day: '2026-12-06',
      time: '07:00:00Z',
      email: 'mock@example.com',
      site: 'https://example.com/',
      id: '00000000-0000-4000-8000-000000000000',
    })
    expect(valid(schema, 'at: 2027-01-02T03:04:05Z')).toMatchObject({
      at: '2027-01-02T03:04:05.000Z',
    })
  })

  it('fits a string to minLength and maxLength', () => {
    const schema = object({
      short: { type: 'string', maxLength: 5 },
      long: { type: 'string', minLength: 3 },
    })
    expect(valid(schema, 'short: abcdefgh, long: x')).toEqual({ short: 'abcde', long: 'x__' })
  })

  it('makes booleans false unless the text names them true', () => {
    const schema = object({ urgent: { type: 'boolean' }, loud: { type: 'boolean' } })
    expect(valid(schema, 'urgent: yes')).toEqual({ urgent: true, loud: false })
  })

  it('makes arrays of minItems elements, or none, and one element when the text names it', () => {
    const schema = object({
      tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
      ids: { type: 'array', items: { type: 'integer' } },
      pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], minItems: 2 },
    })
    expect(valid(schema, '"groceries" 4')).toEqual({
      tags: ['groceries'],
      ids: [],
      pair: ['groceries', 4],
    })
    expect(valid(schema, 'ids: 9')).toMatchObject({ ids: [9] })
  })

  it('fills nested objects, anyOf and oneOf branches, nullable types and allOf', () => {
    const schema = object({
      place: object({ city: { type: 'string' }, zip: { type: ['integer', 'null'] } }),
      when: { anyOf: [{ type: 'null' }, { type: 'string', format: 'date' }] },
      size: { oneOf: [{ type: 'integer', minimum: 2 }, { type: 'string' }] },
      both: {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { properties: { b: { type: 'number' } }, required: ['b'] },
        ],
      },
    })
    expect(valid(schema, '"Oslo"')).toEqual({
      place: { city: 'Oslo', zip: 0 },
      when: '2026-12-06',
      size: 2,
      both: { a: 'Oslo', b: 0 },
    })
  })

  it('answers an empty or property-less schema with an empty object', () => {
    expect(valid({ type: 'object' }, 'anything')).toEqual({})
    expect(valid({ type: 'object', properties: {} }, 'anything')).toEqual({})
    expect(valid({}, 'anything')).toEqual({})
  })

  it('falls back to an empty object on a schema it cannot read, without throwing', () => {
    const odd: JSONSchema[] = [
      { type: 'string' },
      { type: 'object', properties: null, required: 'city' },
      { type: 'object', properties: { x: { type: 'file' } }, required: ['x'] },
      { type: 'object', properties: { x: { $ref: '#/$defs/x' } }, required: ['x'] },
    ]
    for (const schema of odd) {
      expect(() => toolArguments(schema, { text: 'hi', now: NOW })).not.toThrow()
    }
    expect(toolArguments({ type: 'string' }, { text: 'hi', now: NOW })).toEqual({})
    expect(
      toolArguments(
        { type: 'object', properties: { x: { type: 'file' } }, required: ['x'] },
        { text: 'hi', now: NOW },
      ),
    ).toEqual({})
  })

  it('stops at a depth limit on a deeply nested schema', () => {
    let schema: JSONSchema = { type: 'object', properties: {} }
    for (let i = 0; i < 100; i++) schema = object({ inner: schema })
    const input = toolArguments(schema, { text: 'x', now: NOW })
    expect(JSON.stringify(input).match(/inner/g)?.length).toBe(16)
  })

  it('keeps a property named __proto__ as a property', () => {
    // Parsed, as a schema from a request is: a literal `__proto__` would set the prototype.
    const properties = JSON.parse('{ "__proto__": { "type": "string" } }') as JSONSchema
    const input = toolArguments(object(properties), { text: 'x', now: NOW })
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype)
    expect(Object.hasOwn(input, '__proto__')).toBe(true)
  })
})
