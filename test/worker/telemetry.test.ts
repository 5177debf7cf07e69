/**
 * Cost, dollar budgets and traces in workerd, with the production wrangler.toml: the budget is
 * shared through the rate limiter's Durable Object, and spans reach a fake OTLP collector (a
 * loopback HTTP server) through `waitUntil`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { relay, traceparent } from '../../src/client/index.ts'
import { complete } from '../../src/core/complete.ts'
import type { AssistantTurn } from '../../src/core/conversation.ts'
import { payloads, readSse } from '../relay/sse-reader.ts'
import {
  PRICED_ANSWER_ATTRIBUTES,
  startCollector,
  type FakeCollector,
  type OtlpExport,
} from './otlp-collector.ts'
import { startTestWorker, type TestWorker, type WorkerAnswers } from './start-worker.ts'

const ENTRY = 'test/worker/fixtures/telemetry-worker.ts'
const PROMPT = 'Tell me the launch code.'

let collector: FakeCollector
let exports: OtlpExport[]
let traced: TestWorker
let budgeted: WorkerAnswers

beforeAll(async () => {
  collector = await startCollector()
  exports = collector.exports
  traced = await startTestWorker(
    {
      MOCK_MODELS: 'off',
      OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/collector`,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=collector-key',
      OTEL_SERVICE_NAME: 'relay-under-test',
    },
    ENTRY,
  )
  // The same Worker, answering as one with budgets and no traces; its clients have addresses of
  // their own, so their budgets are theirs alone.
  budgeted = traced.withSettings({
    MOCK_MODELS: 'off',
    BUDGET_USD_PER_DAY: '0.25',
    BUDGET_USD_PER_MONTH: '10',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
  })
})

afterAll(async () => {
  await traced?.dispose()
  await collector?.close()
})

const body = JSON.stringify({
  model: 'test/priced',
  conversation: { turns: [{ role: 'user', content: PROMPT }] },
  maxTokens: 100,
})

function post(worker: WorkerAnswers, headers: Record<string, string> = {}) {
  return worker.fetch('/v1/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  })
}

async function doneTurn(response: Response): Promise<AssistantTurn> {
  expect(response.status).toBe(200)
  const last = payloads(await readSse(response)).at(-1)
  expect(last?.event).toBe('done')
  return (last!.data as { turn: AssistantTurn }).turn
}

describe('worker in workerd: traces', () => {
  it('sends each call’s span to <endpoint>/v1/traces, continuing the browser’s trace, without content', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c'
    const parent = 'b7ad6b7169203331'
    const turn = await doneTurn(await post(traced, { traceparent: `00-${traceId}-${parent}-01` }))
    expect(turn.usage.cost).toBe(0.15)
    await collector.until(() => exports.length > 0)
    expect(exports).toHaveLength(1)
    const sent = exports[0]!
    expect(sent.path).toBe('/collector/v1/traces')
    expect(sent.headers['x-api-key']).toBe('collector-key')
    expect(sent.headers['content-type']).toBe('application/json')
    const resource = sent.body.resourceSpans[0]!
    expect(resource.resource.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'relay-under-test' },
    })
    const span = resource.scopeSpans[0]!.spans[0]!
    expect(span).toMatchObject({ traceId, parentSpanId: parent, name: 'chat priced', kind: 3 })
    expect(span.status.code).toBe(1)
    const attributes = new Map(span.attributes.map((a) => [a.key, a.value]))
    expect(Object.fromEntries(attributes)).toMatchObject(PRICED_ANSWER_ATTRIBUTES)
    expect(attributes.has('gen_ai.client.operation.duration')).toBe(true)
    expect(attributes.has('gen_ai.client.operation.time_to_first_chunk')).toBe(true)
    expect(JSON.stringify(sent.body)).not.toContain(PROMPT)
    expect(JSON.stringify(sent.body)).not.toContain('A priced answer.')
  })
})

describe('worker in workerd: a trace from the relay client', () => {
  it('continues the trace of the traceparent() that relay() sent with the call', async () => {
    const sent: string[] = []
    const adapter = relay({
      url: traced.url.origin,
      model: 'test/priced',
      headers: () => ({ traceparent: traceparent() }),
      fetch: (input, init) => {
        sent.push(new Headers(init?.headers).get('traceparent') ?? '')
        return fetch(input, init)
      },
    })
    const before = exports.length
    const turn = await complete(adapter, { turns: [{ role: 'user', content: PROMPT }] })
    expect(turn.text).toBe('A priced answer.')
    expect(sent).toHaveLength(1)
    const [, traceId, spanId, flags] = sent[0]!.split('-')
    expect(flags).toBe('01')
    await collector.until(() => exports.length > before)
    const spans = exports
      .slice(before)
      .flatMap((posted) => posted.body.resourceSpans[0]!.scopeSpans[0]!.spans)
    expect(spans).toHaveLength(1)
    expect(spans[0]).toMatchObject({ traceId, parentSpanId: spanId, name: 'chat priced' })
  })
})

describe('worker in workerd: dollar budgets', () => {
  it('shares a client’s daily budget between two requests at once, and tells it its spend', async () => {
    const client = { 'cf-connecting-ip': '198.51.100.7' }
    // Each call reserves its input (a few dozen tokens) and 100 output tokens: about $0.13.
    const [one, two] = await Promise.all([post(budgeted, client), post(budgeted, client)])
    const statuses = [one.status, two.status].toSorted()
    expect(statuses).toEqual([200, 429])
    const refused = one.status === 429 ? one : two
    const admitted = one.status === 429 ? two : one
    const error = ((await refused.json()) as { error: { kind: string; message: string } }).error
    expect(error.kind).toBe('rate-limit')
    expect(error.message).toMatch(
      /^the daily budget of \$0\.25 for this client is spent; it resets at \d{4}-\d{2}-\d{2}T00:00:00\.000Z$/,
    )
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await doneTurn(admitted)).usage.cost).toBe(0.15)
    // The real cost replaced the reservation once the answer ended.
    let spend: { day: { spentUsd: number; limitUsd: number; remainingUsd: number } } | undefined
    for (let i = 0; i < 50; i++) {
      const usage = await budgeted.fetch('/v1/usage', { headers: client })
      expect(usage.status).toBe(200)
      spend = (await usage.json()) as typeof spend
      if (spend?.day.spentUsd === 0.15) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(spend).toMatchObject({
      day: { spentUsd: 0.15, limitUsd: 0.25, remainingUsd: 0.1 },
      month: { spentUsd: 0.15, limitUsd: 10, remainingUsd: 9.85 },
    })
    // Another client has its own budget.
    await doneTurn(await post(budgeted, { 'cf-connecting-ip': '198.51.100.8' }))
  })
})
