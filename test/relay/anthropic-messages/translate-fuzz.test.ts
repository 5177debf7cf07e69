/**
 * The Messages API translator and route on junk: never a throw, every refusal naming a field that
 * starts its message and that the client sent, and the route answering only 4xx in Anthropic's
 * shape or an answer.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../../helpers/property.ts'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import { isRecord } from '../../../src/kit/json.ts'
import { mock } from '../../../src/providers/mock/index.ts'
import {
  MESSAGES_FIELDS,
  messagesDialect,
  sealedBlock,
  translateMessagesRequest,
} from '../../../src/relay/anthropic-messages/index.ts'
import { createRelay } from '../../../src/relay/index.ts'

const limits = { turns: 8, tools: 3, maxTokens: 4096, depth: 6, toolCalls: 3, toolResults: 3 }

const sealed: AssistantTurn = {
  role: 'assistant',
  text: 'ok',
  toolCalls: [{ id: 't1', name: 'f', input: { a: 1 } }],
  usage: { inputTokens: 0, outputTokens: 0 },
  stopReason: 'tool-calls',
  items: { provider: 'p', model: 'm', thinkingMode: 'off', data: [1], seal: 's1.x.y' },
}

/** Keys that reach prototypes or name fields the translator reads. */
const key = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'toString', 'type', 'text', 'role', 'source'),
  fc.string({ maxLength: 6 }),
)
const json = fc.jsonValue({ maxDepth: 3 })
const loose = fc.oneof(json, fc.dictionary(key, json, { maxKeys: 3 }))
/** Mostly a plausible value, sometimes junk. */
const maybe = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: arb, weight: 12 }, { arbitrary: loose, weight: 1 })

const text = fc.oneof(fc.constantFrom('Hi', 'ok', ''), fc.string({ maxLength: 8 }))
/** Mostly no cache mark; else one, sometimes wrong. */
const cache = fc.option(
  maybe(
    fc.record(
      { type: maybe(fc.constant('ephemeral')), ttl: maybe(fc.constantFrom('5m', '1h')) },
      { requiredKeys: ['type'] },
    ),
  ),
  { nil: undefined, freq: 3 },
)
const textBlock = fc.record(
  { type: fc.constant('text'), text: maybe(text), cache_control: cache },
  { requiredKeys: ['type', 'text'] },
)
const imageBlock = fc.record({
  type: fc.constant('image'),
  source: maybe(
    fc.oneof(
      fc.record({
        type: fc.constant('base64'),
        media_type: fc.constantFrom('image/png', 'text/x'),
        data: fc.constantFrom('aGk=', '', '%%'),
      }),
      fc.record({
        type: fc.constant('url'),
        url: fc.constantFrom('https://example.com/a.png', 'javascript:x', 'nope'),
      }),
      fc.record({ type: fc.constant('file'), file_id: fc.string() }),
    ),
  ),
})
const resultBlock = fc.record(
  {
    type: fc.constant('tool_result'),
    tool_use_id: maybe(fc.constantFrom('t1', 't2', '')),
    content: maybe(
      fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 })),
    ),
    is_error: maybe(fc.boolean()),
  },
  { requiredKeys: ['type', 'tool_use_id'] },
)
const toolUseBlock = fc.record({
  type: fc.constant('tool_use'),
  id: maybe(fc.constantFrom('t1', 't2', '')),
  name: maybe(fc.constantFrom('f', 'g', 'bad name')),
  input: maybe(json),
})
const thinkingBlock = fc.record({
  type: fc.constant('thinking'),
  thinking: maybe(text),
  signature: maybe(
    fc.oneof(
      fc.constant(sealedBlock(sealed)!.signature),
      fc.constantFrom('', 'EqQB', 'thinkwire-v1.x'),
    ),
  ),
})
const redactedBlock = fc.record({
  type: fc.constant('redacted_thinking'),
  data: maybe(fc.string()),
})
/** Blocks of the message's own role mostly, now and then one of the other role's or junk. */
const userContent = fc.oneof(
  { arbitrary: text, weight: 3 },
  {
    arbitrary: fc.array(fc.oneof({ arbitrary: textBlock, weight: 3 }, imageBlock, resultBlock), {
      maxLength: 3,
    }),
    weight: 3,
  },
  fc.array(fc.oneof(toolUseBlock, thinkingBlock, loose), { maxLength: 2 }),
  loose,
)
const assistantContent = fc.oneof(
  { arbitrary: text, weight: 2 },
  {
    arbitrary: fc.array(
      fc.oneof({ arbitrary: textBlock, weight: 2 }, toolUseBlock, thinkingBlock, redactedBlock),
      { maxLength: 4 },
    ),
    weight: 4,
  },
  fc.array(fc.oneof(imageBlock, resultBlock, loose), { maxLength: 2 }),
  loose,
)
const message = fc.oneof(
  { arbitrary: fc.record({ role: fc.constant('user'), content: userContent }), weight: 6 },
  {
    arbitrary: fc.record({ role: fc.constant('assistant'), content: assistantContent }),
    weight: 4,
  },
  fc.record({ role: fc.constant('system'), content: maybe(text) }),
  fc.record({ role: maybe(fc.constantFrom('tool', 'model')), content: loose }),
)
/** A well-formed request of plain turns: what most clients send, for the success path. */
const plausible = fc.record(
  {
    model: fc.constant('mock/echo'),
    max_tokens: fc.integer({ min: 1, max: 4096 }),
    messages: fc.array(
      fc.oneof(
        fc.record({
          role: fc.constant('user'),
          content: fc.string({ minLength: 1, maxLength: 8 }),
        }),
        fc.record({
          role: fc.constant('user'),
          content: fc.array(
            fc.record({ type: fc.constant('text'), text: fc.string({ minLength: 1 }) }),
            {
              minLength: 1,
              maxLength: 2,
            },
          ),
        }),
        fc.record({
          role: fc.constant('assistant'),
          content: fc.string({ minLength: 1, maxLength: 8 }),
        }),
      ),
      { minLength: 1, maxLength: 4 },
    ),
    system: fc.string({ maxLength: 8 }),
    stream: fc.boolean(),
    thinking: fc.constantFrom(
      { type: 'adaptive' },
      { type: 'disabled' },
      { type: 'enabled', budget_tokens: 1024 },
    ),
    output_config: fc.record({ effort: fc.constantFrom('low', 'medium', 'xhigh') }),
    stop_sequences: fc.array(fc.constantFrom('END', '###'), { maxLength: 2 }),
  },
  { requiredKeys: ['model', 'max_tokens', 'messages'] },
)

const body = fc.oneof(
  plausible,
  fc.record(
    {
      model: maybe(fc.constant('mock/echo')),
      max_tokens: maybe(fc.oneof(fc.integer({ min: 1, max: 4096 }), fc.constantFrom(0, 5000, 1.5))),
      messages: maybe(fc.array(message, { minLength: 1, maxLength: 5 })),
      system: maybe(
        fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 })),
      ),
      tools: maybe(
        fc.array(
          fc.record(
            {
              name: maybe(fc.constantFrom('f', 'g', 'bad name')),
              input_schema: maybe(fc.constantFrom({ type: 'object' }, { type: 'array' }, {})),
              type: fc.option(fc.constantFrom('custom', 'web_search_20250305'), { nil: undefined }),
              cache_control: cache,
            },
            { requiredKeys: ['name', 'input_schema'] },
          ),
          { maxLength: 2 },
        ),
      ),
      tool_choice: maybe(
        fc.record(
          {
            type: fc.constantFrom('auto', 'any', 'tool', 'none', 'x'),
            name: maybe(fc.constantFrom('f', 'z')),
          },
          { requiredKeys: ['type'] },
        ),
      ),
      thinking: maybe(
        fc.record(
          {
            type: fc.constantFrom('enabled', 'adaptive', 'disabled', 'between_tools'),
            budget_tokens: maybe(fc.integer({ min: 0, max: 5000 })),
          },
          { requiredKeys: ['type'] },
        ),
      ),
      output_config: maybe(
        fc.record(
          {
            effort: maybe(fc.constantFrom('low', 'xhigh', 'max', 'huge')),
            format: maybe(
              fc.record({ type: fc.constantFrom('json_schema', 'text'), schema: loose }),
            ),
          },
          { requiredKeys: [] },
        ),
      ),
      temperature: maybe(fc.double({ min: 0, max: 3, noNaN: true })),
      stop_sequences: maybe(fc.array(fc.constantFrom('END', '###', ''), { maxLength: 3 })),
      stream: maybe(fc.boolean()),
      cache_control: cache,
      metadata: json,
      container: fc.constant(null),
    },
    { requiredKeys: ['model', 'max_tokens', 'messages'] },
  ),
  // Fields outside the API, next to real ones.
  fc
    .dictionary(key, json, { maxKeys: 3 })
    .map((extra) => ({ model: 'mock/echo', max_tokens: 64, messages: [], ...extra })),
  loose,
)

/** What a client's JSON body is: the text parsed, so `__proto__` keys are own members. */
const parsed = body.map((value) => JSON.parse(JSON.stringify(value) ?? 'null') as unknown)

function messagesOf(value: unknown): readonly unknown[] {
  const messages = isRecord(value) ? value['messages'] : undefined
  return Array.isArray(messages) ? messages : []
}

describe('/v1/messages on junk', () => {
  it(
    'never throws, and names a field the client sent, at the start of its message',
    () => {
      const known = new Set([...Object.keys(MESSAGES_FIELDS), 'body'])
      fc.assert(
        fc.property(parsed, (value) => {
          expect(translateMessagesRequest(value)).toBeDefined()
          const result = messagesDialect.parse(value, limits)
          if (result.ok || result.field === undefined) return
          expect(result.message.startsWith(result.field)).toBe(true)
          const head = result.field.split(/[.[]/)[0]!
          // An unknown field is named as it is; any other is one of the API's.
          if (isRecord(value) && !Object.hasOwn(value, result.field))
            expect(known.has(head), result.field).toBe(true)
          const index = /^messages\[(\d+)\]/.exec(result.field)?.[1]
          if (index !== undefined) expect(Number(index)).toBeLessThan(messagesOf(value).length)
        }),
        { seed: 20_261_206, numRuns: 3000, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )

  it('reaches the dialect’s success path, not only its refusals', () => {
    // More than one case in ten, counted on the generator's first cases (those the property above
    // runs first), so it holds however many cases the time-bounded property got to run.
    const values = fc.sample(parsed, { seed: 20_261_206, numRuns: 1000 })
    const accepted = values.filter((value) => messagesDialect.parse(value, limits).ok).length
    expect(accepted).toBeGreaterThan(100)
  })

  it(
    'answers every body with a 4xx Anthropic error or an answer, never a 500',
    async () => {
      const relay = createRelay({ providers: { mock: [mock()] } })
      await fc.assert(
        fc.asyncProperty(parsed, async (value) => {
          const response = await relay.fetch(
            new Request('http://relay.test/v1/messages', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(value) ?? 'null',
            }),
          )
          const answer = await response.text()
          expect(response.status).toBeLessThan(500)
          if (response.status >= 400) {
            const error = JSON.parse(answer) as {
              type: string
              error: { type: string; message: string }
            }
            expect(error.type).toBe('error')
            expect(['invalid_request_error', 'not_found_error']).toContain(error.error.type)
          }
        }),
        { numRuns: 400, seed: 20_261_207, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )
})
