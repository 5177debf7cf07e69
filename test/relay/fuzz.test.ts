import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../helpers/property.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { createRelay } from '../../src/relay/index.ts'
import { chat } from './helpers.ts'
import { readSse } from './sse-reader.ts'

const adapter = mock({ script: [{ thinking: 'ok', text: 'fine' }] })
const relay = createRelay({
  providers: { mock: [adapter] },
  sealKeys: ['fuzz-seal-key-Qm4Rt8Wz2Xc6Vb0Nk5Lp7Ds'],
  limits: { bodyBytes: 64 * 1024, turns: 20 },
})

/** Keys a client could use to reach prototypes or confuse a validator. */
const key = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'role',
    'text',
    'content',
    'items',
    'data',
    'seal',
  ),
  fc.string({ maxLength: 8 }),
)
const json = fc.jsonValue({ maxDepth: 4 })
const loose = fc.oneof(json, fc.dictionary(key, json, { maxKeys: 4 }))

const turn = fc.oneof(
  fc.record(
    {
      role: fc.oneof(fc.constantFrom('user', 'assistant', 'tool', 'system'), json),
      content: fc.oneof(
        fc.string(),
        fc.array(
          fc.record(
            {
              type: fc.constantFrom('text', 'image'),
              text: fc.string(),
              url: fc.string(),
              data: fc.string(),
              mediaType: fc.string(),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        ),
        json,
      ),
      text: fc.oneof(fc.string(), json),
      toolCalls: fc.oneof(
        fc.array(
          fc.record({ id: fc.string(), name: fc.string(), input: json }, { requiredKeys: [] }),
          { maxLength: 2 },
        ),
        json,
      ),
      results: fc.oneof(
        fc.array(
          fc.record(
            { callId: fc.string(), name: fc.string(), output: json, isError: json },
            { requiredKeys: [] },
          ),
          { maxLength: 2 },
        ),
        json,
      ),
      usage: fc.oneof(fc.record({ inputTokens: fc.integer(), outputTokens: fc.double() }), json),
      stopReason: fc.oneof(fc.constantFrom('stop', 'tool-calls', 'nope'), json),
      items: fc.oneof(
        fc.record(
          {
            provider: fc.constantFrom('mock', 'x'),
            model: fc.constantFrom('echo', ''),
            thinkingMode: fc.constantFrom('default', 'high'),
            data: fc.oneof(fc.array(json), json),
            seal: fc.string(),
          },
          { requiredKeys: [] },
        ),
        json,
      ),
    },
    { requiredKeys: ['role'] },
  ),
  loose,
)

const wild = fc.record(
  {
    model: fc.oneof(fc.constantFrom('mock/echo', 'mock/other', 'nope/x', 'mock', ''), json),
    conversation: fc.oneof(
      fc.record(
        {
          system: fc.oneof(fc.string(), json),
          turns: fc.oneof(fc.array(turn, { maxLength: 4 }), json),
        },
        { requiredKeys: ['turns'] },
      ),
      loose,
    ),
    thinking: fc.oneof(
      fc.constantFrom('off', 'high', 'extreme'),
      fc.record({ budgetTokens: fc.oneof(fc.integer(), json) }),
      json,
    ),
    tools: fc.oneof(
      fc.array(
        fc.record(
          {
            name: fc.oneof(fc.constantFrom('lookup', 'a b'), fc.string()),
            description: json,
            parameters: loose,
          },
          { requiredKeys: [] },
        ),
        { maxLength: 3 },
      ),
      json,
    ),
    toolChoice: fc.oneof(
      fc.constantFrom('auto', 'none', 'required'),
      fc.record({ name: json }),
      json,
    ),
    maxTokens: fc.oneof(fc.integer(), fc.double(), json),
    temperature: fc.oneof(fc.double(), json),
    responseFormat: fc.oneof(
      fc.record(
        { type: fc.constantFrom('json', 'xml'), schema: loose, name: json },
        { requiredKeys: [] },
      ),
      json,
    ),
    providerOptions: loose,
  },
  { requiredKeys: [] },
)

const phrase = fc.string({ minLength: 1, maxLength: 40 })
const validTurns = fc.array(fc.tuple(phrase, phrase), { minLength: 1, maxLength: 4 }).map((pairs) =>
  pairs.flatMap(([question, answer], i) => {
    const user = { role: 'user', content: question }
    return i === pairs.length - 1 ? [user] : [user, { role: 'assistant', text: answer }]
  }),
)
const valid = fc.record(
  {
    model: fc.constant('mock/echo'),
    conversation: fc.record(
      { system: fc.string({ maxLength: 20 }), turns: validTurns },
      { requiredKeys: ['turns'] },
    ),
    thinking: fc.oneof(
      fc.constantFrom('off', 'low', 'medium', 'high', 'max'),
      fc.record({ budgetTokens: fc.integer({ min: 1, max: 5000 }) }),
    ),
    tools: fc.constant([
      { name: 'lookup', description: 'Looks things up', parameters: { type: 'object' } },
    ]),
    maxTokens: fc.integer({ min: 1, max: 5000 }),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    responseFormat: fc.constant({ type: 'json' }),
  },
  { requiredKeys: ['model', 'conversation'] },
)

/** A valid body with one member replaced (or added, `__proto__` and `constructor` included). */
const mutated = fc
  .tuple(
    valid,
    fc.constantFrom(
      [],
      ['conversation'],
      ['conversation', 'turns'],
      ['conversation', 'turns', 0],
      ['conversation', 'system'],
      ['thinking'],
      ['tools', 0],
      ['tools', 0, 'parameters'],
    ),
    key,
    loose,
  )
  .map(([value, path, name, replacement]) => {
    const copy = JSON.parse(JSON.stringify(value)) as Record<string, unknown>
    let target: unknown = copy
    for (const step of path) {
      target =
        typeof target === 'object' && target !== null
          ? (target as Record<string | number, unknown>)[step]
          : undefined
    }
    if (typeof target === 'object' && target !== null) {
      // defineProperty makes even `__proto__` an own, serialized member rather than a prototype.
      Object.defineProperty(target, name, {
        value: replacement,
        enumerable: true,
        writable: true,
        configurable: true,
      })
    }
    return copy
  })

const body = fc.oneof(valid, mutated, wild)

/** Every answer is a 4xx JSON error, or a 200 stream that ends in done or error. Never a 5xx. */
async function checkAnswer(response: Response): Promise<void> {
  if (response.status === 200) {
    const read = await readSse(response)
    expect(['done', 'error']).toContain(read.events.at(-1)?.event)
    return
  }
  expect(response.status).toBeGreaterThanOrEqual(400)
  expect(response.status).toBeLessThan(500)
  expect(response.headers.get('content-type')).toBe('application/json')
  const { error } = (await response.json()) as { error: { kind: unknown; message: unknown } }
  expect(typeof error.kind).toBe('string')
  expect(typeof error.message).toBe('string')
}

describe('createRelay: fuzzed bodies', () => {
  /**
   * The cases the structured property below ran: fewer than asked on a machine too busy to run them
   * all.
   */
  let runs = 0
  afterAll(() => {
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
    expect(Object.keys(Object.prototype)).toEqual([])
  })

  it(
    'answers structured near-valid bodies with 4xx JSON or a complete stream, never a 5xx',
    async () => {
      await fc.assert(
        fc.asyncProperty(body, async (value) => {
          runs++
          await checkAnswer(await chat(relay, value))
        }),
        { seed: 20_260_101, numRuns: 1000, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )

  it(
    'answers arbitrary JSON and arbitrary text the same way',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.jsonValue().map((v) => JSON.stringify(v)),
            fc.string({ unit: 'binary' }),
          ),
          async (text) => {
            await checkAnswer(await chat(relay, text))
          },
        ),
        { seed: 42, numRuns: 1000, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )

  it('hands the model only conversations whose turns have a known role', () => {
    // The structured bodies reach the model often enough for this to mean something: in one case in
    // ten at least (about one in three with this seed), of however many that property ran. (Arbitrary
    // JSON and text seldom do: counting their cases too, of which a busy machine may run many more
    // than of the structured ones, failed this for no fault of the generators.)
    expect(runs).toBeGreaterThan(0)
    expect(adapter.calls.length).toBeGreaterThan(runs / 10)
    for (const call of adapter.calls) {
      for (const t of call.conversation.turns)
        expect(['user', 'assistant', 'tool']).toContain(t.role)
    }
  })
})
