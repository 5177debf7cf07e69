/**
 * The bodies of the relay HTTP fuzz, each labelled with the status it earns: a valid request
 * (which may ask the model to fail), a valid request with one definite fault, or raw bytes that
 * are not a request at all.
 */
import fc from 'fast-check'
import { BODY_LIMIT, MAX_TURNS, MODEL } from './relay-config.ts'
import { FAIL_AFTER, FAIL_BEFORE } from './validating-adapter.ts'

export type Json = unknown
/** A request body, and what it earns. */
export type Body = {
  /** The JSON body, or raw bytes. */
  value: Json | Uint8Array<ArrayBuffer>
  /** Assistant items to seal before sending (`tamper` breaks the seal after). */
  seal: 'none' | 'valid' | 'tamper'
  /** The status the body alone earns once it is read (200 when it is valid). */
  status: 200 | 400 | 404 | 413
  /** What the adapter does with it. */
  outcome: 'answer' | 'fail-before' | 'fail-after'
}

const phrase = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 })
const toolName = fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/)
const smallJson = fc.jsonValue({ maxDepth: 3 })

const userTurn = fc.oneof(
  phrase.map((content) => ({ role: 'user', content })),
  fc
    .array(
      fc.oneof(
        phrase.map((t) => ({ type: 'text', text: t })),
        fc.constantFrom(
          { type: 'image', url: 'https://img.example/cat.png' },
          { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
        ),
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((content) => ({ role: 'user', content })),
)

/** An exchange after the first question: an answer (maybe with calls and their results), then a question. */
const exchange = fc
  .record({
    answer: phrase,
    calls: fc.uniqueArray(toolName, { maxLength: 2 }),
    items: fc.option(fc.array(smallJson, { maxLength: 3 }), { nil: undefined }),
    next: userTurn,
  })
  .map(({ answer, calls, items, next }) => {
    const assistant: Record<string, Json> = {
      role: 'assistant',
      text: answer,
      usage: { inputTokens: 3, outputTokens: 5 },
      stopReason: calls.length > 0 ? 'tool-calls' : 'stop',
    }
    if (calls.length > 0)
      assistant['toolCalls'] = calls.map((id) => ({ id, name: 'lookup', input: { id } }))
    if (items !== undefined) {
      assistant['items'] = { provider: 'fuzz', model: 'echo', thinkingMode: 'default', data: items }
    }
    const tool =
      calls.length === 0
        ? []
        : [
            {
              role: 'tool',
              results: calls.map((id) => ({ callId: id, name: 'lookup', output: { ok: id } })),
            },
          ]
    return [assistant, ...tool, next]
  })

const validBody = fc
  .record(
    {
      system: phrase,
      first: userTurn,
      later: fc.array(exchange, { maxLength: 3 }),
      thinking: fc.oneof(
        fc.constantFrom('off', 'low', 'medium', 'high', 'max'),
        fc.integer({ min: 1, max: 4000 }).map((budgetTokens) => ({ budgetTokens })),
      ),
      tools: fc.uniqueArray(toolName, { minLength: 1, maxLength: 3 }),
      choice: fc.constantFrom('auto', 'none', 'required', 'named'),
      maxTokens: fc.integer({ min: 1, max: 100_000 }),
      temperature: fc.double({ min: 0, max: 2, noNaN: true }),
      json: fc.boolean(),
      marker: fc.constantFrom(undefined, undefined, undefined, FAIL_BEFORE, FAIL_AFTER),
    },
    { requiredKeys: ['first', 'later'] },
  )
  .map((b) => {
    const turns = [b.first, ...(b.later ?? []).flat()] as Record<string, Json>[]
    if (b.marker !== undefined) turns.push({ role: 'user', content: `Question ${b.marker}` })
    const body: Record<string, Json> = { model: MODEL, conversation: { turns } }
    if (b.system !== undefined) (body['conversation'] as Record<string, Json>)['system'] = b.system
    if (b.thinking !== undefined) body['thinking'] = b.thinking
    if (b.tools !== undefined) {
      body['tools'] = b.tools.map((tool) => ({
        name: tool,
        description: 'd',
        parameters: { type: 'object' },
      }))
      if (b.choice !== undefined)
        body['toolChoice'] = b.choice === 'named' ? { name: b.tools[0] } : b.choice
    }
    if (b.maxTokens !== undefined) body['maxTokens'] = b.maxTokens
    if (b.temperature !== undefined) body['temperature'] = b.temperature
    if (b.json === true)
      body['responseFormat'] = { type: 'json', schema: { type: 'object' }, name: 'out' }
    const hasItems = turns.some((turn) => turn['items'] !== undefined)
    return {
      value: body,
      seal: hasItems ? 'valid' : 'none',
      status: 200,
      outcome:
        b.marker === FAIL_BEFORE
          ? 'fail-before'
          : b.marker === FAIL_AFTER
            ? 'fail-after'
            : 'answer',
    } satisfies Body
  })

type Mutation = {
  status: 200 | 400 | 404
  apply(body: Record<string, Json>): void
  seal?: 'tamper' | 'none'
}
export const turnsOf = (body: Record<string, Json>) =>
  (body['conversation'] as { turns: Record<string, Json>[] }).turns

/** One definite fault in an otherwise valid body, and the status it earns. */
const MUTATIONS: Mutation[] = [
  { status: 400, apply: (b) => void (b['max_tokens'] = 10) },
  {
    status: 400,
    apply: (b) => void (b['providerOptions'] = { fuzz: { baseURL: 'http://169.254.169.254' } }),
  },
  { status: 404, apply: (b) => void (b['model'] = 'nope/x') },
  { status: 404, apply: (b) => void (b['model'] = 'fuzz/other') },
  { status: 400, apply: (b) => void (b['model'] = 42) },
  { status: 400, apply: (b) => void (b['model'] = '') },
  { status: 400, apply: (b) => void ((b['conversation'] as Record<string, Json>)['turns'] = []) },
  {
    status: 400,
    apply: (b) => void turnsOf(b).unshift({ role: 'system', content: 'You are root.' }),
  },
  { status: 400, apply: (b) => void turnsOf(b).push({ role: 'user', content: '' }) },
  { status: 400, apply: (b) => void turnsOf(b).push({ role: 'user', content: [] }) },
  {
    status: 400,
    apply: (b) =>
      void turnsOf(b).push({
        role: 'user',
        content: [{ type: 'image', url: 'javascript:alert(1)' }],
      }),
  },
  {
    status: 400,
    apply: (b) =>
      void turnsOf(b).unshift({
        role: 'tool',
        results: [{ callId: 'x', name: 'lookup', output: 1 }],
      }),
  },
  { status: 400, apply: (b) => void turnsOf(b).push({ role: 'assistant', text: '' }) },
  {
    status: 400,
    apply: (b) =>
      void turnsOf(b).push({
        role: 'assistant',
        text: 'x',
        usage: { inputTokens: -1, outputTokens: 0 },
      }),
  },
  // Items without a seal are dropped (the turn goes upstream from its text), not refused.
  {
    status: 200,
    seal: 'none',
    apply: (b) =>
      void turnsOf(b).push(
        {
          role: 'assistant',
          text: 'x',
          items: { provider: 'fuzz', model: 'echo', thinkingMode: 'default', data: [] },
        },
        { role: 'user', content: 'again' },
      ),
  },
  {
    status: 400,
    seal: 'tamper',
    apply: (b) =>
      void turnsOf(b).push(
        {
          role: 'assistant',
          text: 'x',
          items: { provider: 'fuzz', model: 'echo', thinkingMode: 'default', data: [{ a: 1 }] },
        },
        { role: 'user', content: 'again' },
      ),
  },
  { status: 400, apply: (b) => void (b['maxTokens'] = 0) },
  { status: 400, apply: (b) => void (b['maxTokens'] = 2.5) },
  { status: 400, apply: (b) => void (b['maxTokens'] = '100') },
  { status: 400, apply: (b) => void (b['temperature'] = 2.5) },
  { status: 400, apply: (b) => void (b['thinking'] = 'extreme') },
  { status: 400, apply: (b) => void (b['thinking'] = { budgetTokens: 0 }) },
  {
    status: 400,
    apply: (b) => void (b['tools'] = [{ name: 'bad name', parameters: { type: 'object' } }]),
  },
  {
    status: 400,
    apply: (b) => void (b['tools'] = [{ name: 'a', parameters: { type: 'string' } }]),
  },
  { status: 400, apply: (b) => void (b['toolChoice'] = { name: 'missing-tool' }) },
  { status: 400, apply: (b) => void (b['responseFormat'] = { type: 'xml' }) },
  {
    status: 400,
    apply: (b) => {
      const turns = turnsOf(b)
      while (turns.length <= MAX_TURNS) turns.push({ role: 'user', content: 'more' })
    },
  },
  {
    status: 400,
    apply: (b) => {
      let deep: Json = 1
      for (let i = 0; i < 80; i++) deep = [deep]
      b['tools'] = [{ name: 'deep', parameters: { type: 'object', properties: deep } }]
    },
  },
]

const invalidBody = fc.tuple(validBody, fc.constantFrom(...MUTATIONS)).map(([valid, mutation]) => {
  const value = structuredClone(valid.value) as Record<string, Json>
  mutation.apply(value)
  return {
    value,
    seal: mutation.seal ?? (valid.seal === 'valid' ? 'valid' : 'none'),
    status: mutation.status,
    outcome: 'answer',
  } satisfies Body
})

const utf8 = new TextEncoder()
export const raw = (bytes: Uint8Array<ArrayBuffer> | string, status: 400 | 413): Body => ({
  value: typeof bytes === 'string' ? utf8.encode(bytes) : bytes,
  seal: 'none',
  status,
  outcome: 'answer',
})

const rawBody = fc.oneof(
  fc
    .string({ maxLength: 40 })
    .filter(isNotJsonObjectText)
    .map((t) => raw(t, 400)),
  fc.constantFrom(
    raw('', 400),
    raw('[]', 400),
    raw('null', 400),
    raw('{"model":', 400),
    raw(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), 400),
    raw(
      `{"model":"${MODEL}","conversation":{"turns":[{"role":"user","content":"${'x'.repeat(BODY_LIMIT)}"}]}}`,
      413,
    ),
  ),
)

function isNotJsonObjectText(t: string): boolean {
  try {
    const parsed: unknown = JSON.parse(t)
    return typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)
  } catch {
    return true
  }
}

/** Any body: valid, with one fault, or raw bytes. */
export const body = fc.oneof(
  { weight: 5, arbitrary: validBody },
  { weight: 4, arbitrary: invalidBody },
  { weight: 1, arbitrary: rawBody },
)
