import { describe, expect, it } from 'vitest'
import { withJsonInstruction } from '../../src/kit/index.ts'

const ASK = 'Answer with one JSON value only: no prose, no code fences.'

describe('withJsonInstruction', () => {
  it('is the instruction alone when there is no system prompt, or an empty one', () => {
    expect(withJsonInstruction(undefined, { type: 'json' })).toBe(ASK)
    expect(withJsonInstruction('', { type: 'json' })).toBe(ASK)
  })

  it('follows the system prompt as a paragraph of its own', () => {
    expect(withJsonInstruction('Be terse.', { type: 'json' })).toBe(`Be terse.\n\n${ASK}`)
  })

  it('names the schema the value must match, as JSON', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } } }
    expect(withJsonInstruction('Be terse.', { type: 'json', schema, name: 'place' })).toBe(
      `Be terse.\n\n${ASK} It must match this JSON Schema: ${JSON.stringify(schema)}`,
    )
  })
})
