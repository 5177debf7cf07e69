import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../../helpers/property.ts'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import {
  encodeReasoningDetails,
  rewriteField,
  translateCompletionRequest,
} from '../../../src/relay/completions/index.ts'
import { isRecord } from '../../../src/kit/json.ts'
import { COMPLETION_FIELDS } from '../../../src/relay/completions/translate-request.ts'
import { validateChatRequest } from '../../../src/relay/validate-request.ts'

const limits = { turns: 8, tools: 3, maxTokens: 4096, depth: 6, toolCalls: 3, toolResults: 3 }

const sealed: AssistantTurn = {
  role: 'assistant',
  text: 'ok',
  toolCalls: [{ id: 'c1', name: 'f', input: { a: 1 } }],
  usage: { inputTokens: 0, outputTokens: 0 },
  stopReason: 'tool-calls',
  items: { provider: 'p', model: 'm', thinkingMode: 'off', data: [1], seal: 's1.x.y' },
}

/** Keys that reach prototypes or name fields the translator reads. */
const key = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'type', 'text', 'role'),
  fc.string({ maxLength: 6 }),
)
const json = fc.jsonValue({ maxDepth: 3 })
const loose = fc.oneof(json, fc.dictionary(key, json, { maxKeys: 3 }))
/** Mostly a plausible value, sometimes junk. */
const maybe = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: arb, weight: 6 }, { arbitrary: loose, weight: 1 })

const part = fc.oneof(
  fc.record({ type: maybe(fc.constant('text')), text: maybe(fc.string()) }),
  fc.record({
    type: maybe(fc.constant('image_url')),
    image_url: maybe(
      fc.record({
        url: fc.constantFrom(
          'https://example.com/a.png',
          'data:image/png;base64,aGk=',
          'data:image/png;base64,',
          'data:;base64,x',
          'javascript:alert(1)',
          'data:image/png,raw',
        ),
      }),
    ),
  }),
  loose,
)
const text = fc.oneof(fc.constantFrom('Hi', 'ok', ''), fc.string({ maxLength: 8 }))
const toolCall = fc.record({
  id: maybe(fc.constantFrom('c1', 'c2', '')),
  type: maybe(fc.constant('function')),
  function: maybe(
    fc.record({
      name: maybe(fc.constantFrom('f', 'g', 'bad name')),
      arguments: maybe(
        fc.oneof(
          fc.constantFrom('{"a":1}', '', '{', '[[[[[[[[1]]]]]]]]'),
          json.map((v) => JSON.stringify(v)),
        ),
      ),
    }),
  ),
})
const details = fc.oneof(
  fc.constant(encodeReasoningDetails(sealed)),
  fc.array(
    fc.record({
      type: maybe(fc.constant('reasoning.encrypted')),
      format: maybe(fc.constant('thinkwire-v1')),
      data: fc.string(),
    }),
    { maxLength: 2 },
  ),
)
const message = fc.oneof(
  fc.record({
    role: fc.constantFrom('system', 'developer'),
    content: maybe(
      fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 })),
    ),
  }),
  {
    arbitrary: fc.record({
      role: fc.constant('user'),
      content: maybe(fc.oneof(text, fc.array(part, { maxLength: 3 }))),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record(
      {
        role: fc.constant('assistant'),
        content: maybe(fc.oneof(text, fc.constant(null))),
        tool_calls: maybe(fc.array(toolCall, { maxLength: 3 })),
        reasoning_details: maybe(details),
      },
      { requiredKeys: ['role'] },
    ),
    weight: 2,
  },
  fc.record({
    role: fc.constant('tool'),
    tool_call_id: maybe(fc.constantFrom('c1', 'c2', 'zz')),
    content: maybe(text),
  }),
  fc.record({ role: maybe(fc.constantFrom('function', 'model')), content: loose }),
)
const body = fc.oneof(
  fc.record(
    {
      model: maybe(fc.constant('mock/echo')),
      messages: maybe(fc.array(message, { maxLength: 10 })),
      tools: maybe(
        fc.array(
          fc.record({
            type: maybe(fc.constant('function')),
            function: maybe(fc.record({ name: maybe(fc.string()), parameters: loose })),
          }),
          { maxLength: 2 },
        ),
      ),
      tool_choice: maybe(fc.constantFrom('auto', 'none', 'required')),
      max_tokens: maybe(fc.integer()),
      max_completion_tokens: maybe(fc.integer()),
      temperature: maybe(fc.double()),
      stop: maybe(fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }))),
      response_format: maybe(
        fc.record({
          type: fc.constantFrom('text', 'json_object', 'json_schema'),
          json_schema: loose,
        }),
      ),
      reasoning_effort: maybe(fc.constantFrom('none', 'minimal', 'low', 'medium', 'high', 'xhigh')),
      stream: maybe(fc.boolean()),
      stream_options: maybe(fc.record({ include_usage: maybe(fc.boolean()) })),
      n: maybe(fc.constant(1)),
      seed: json,
    },
    { requiredKeys: [] },
  ),
  // Fields outside the API, next to real ones.
  fc
    .dictionary(key, json, { maxKeys: 3 })
    .map((extra) => ({ model: 'mock/echo', messages: [], ...extra })),
  loose,
)

/** What a client's JSON body is: the text parsed, so `__proto__` keys are own members. */
const parsed = body.map((value) => JSON.parse(JSON.stringify(value) ?? 'null') as unknown)

function messagesOf(value: unknown): readonly unknown[] {
  const messages = isRecord(value) ? value['messages'] : undefined
  return Array.isArray(messages) ? messages : []
}

describe('translateCompletionRequest on junk', () => {
  it(
    'never throws, and refuses with a message that starts with its param',
    () => {
      fc.assert(
        fc.property(parsed, (value) => {
          const result = translateCompletionRequest(value)
          if (!result.ok && result.field !== undefined) {
            expect(result.message.startsWith(result.field)).toBe(true)
          }
        }),
        { seed: 20_260_715, numRuns: 3000, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )

  it(
    'hands validateChatRequest a body whose refusals rewrite to OpenAI fields',
    () => {
      const known = new Set(Object.keys(COMPLETION_FIELDS))
      fc.assert(
        fc.property(parsed, (value) => {
          const result = translateCompletionRequest(value)
          if (!result.ok) return
          const checked = validateChatRequest(result.request, limits)
          if (checked.ok) return
          const param = rewriteField(checked.error.field, result.messageOfTurn)
          const head = /^[a-z_]+/.exec(param)?.[0] ?? ''
          expect(known.has(head), `${checked.error.field} → ${param}`).toBe(true)
          // A message path points at a message the client sent.
          const index = /^messages\[(\d+)\]/.exec(param)?.[1]
          if (index !== undefined) expect(Number(index)).toBeLessThan(messagesOf(value).length)
        }),
        { seed: 20_260_716, numRuns: 3000, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )

  it('reaches the translator’s success path, not only its refusals', () => {
    // More than one case in 30, counted on the generator's first cases (those the property above
    // runs first), so it holds however many cases the time-bounded property got to run.
    const values = fc.sample(parsed, { seed: 20_260_716, numRuns: 1000 })
    const translated = values.filter((value) => translateCompletionRequest(value).ok).length
    expect(translated).toBeGreaterThan(33)
  })

  it(
    'leaves Object.prototype untouched',
    () => {
      fc.assert(
        fc.property(parsed, (value) => {
          translateCompletionRequest(value)
          expect(Object.keys(Object.prototype)).toEqual([])
        }),
        { seed: 7, numRuns: 500, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )
})
