/**
 * Traces of durable conversations in workerd, with the production wrangler.toml: every answer a
 * conversation's object runs (message, regenerate, the answer to a tool turn) sends the GenAI span
 * `/v1/chat` sends, to the same OTLP endpoint (a fake collector on a loopback port), continuing
 * the `traceparent` of the request that started it and naming the conversation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { payloads, readSse, readUntil } from '../relay/sse-reader.ts'
import {
  attributesOf,
  PRICED_ANSWER_ATTRIBUTES,
  startCollector,
  type FakeCollector,
  type OtlpSpan,
} from './otlp-collector.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

const ENTRY = 'test/worker/fixtures/telemetry-worker.ts'
const PROMPT = 'Tell me the launch code.'
const ANSWER = 'A priced answer.'

let collector: FakeCollector
let traced: TestWorker
let captured: TestWorker

beforeAll(async () => {
  collector = await startCollector()
  const vars = { MOCK_MODELS: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }
  ;[traced, captured] = await Promise.all([
    startTestWorker(vars, ENTRY),
    startTestWorker({ ...vars, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }, ENTRY),
  ])
})

afterAll(async () => {
  await Promise.all([traced?.dispose(), captured?.dispose()])
  await collector?.close()
})

/** A fresh trace id for each request, so that each test finds its own spans. */
function newTrace(): { traceId: string; parent: string; header: string } {
  const hex = (bytes: number) =>
    Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) =>
      b.toString(16).padStart(2, '0'),
    ).join('')
  const traceId = hex(16)
  const parent = hex(8)
  return { traceId, parent, header: `00-${traceId}-${parent}-01` }
}

function call(
  worker: TestWorker,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return worker.fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? null : JSON.stringify(body),
  })
}

async function create(worker = traced): Promise<string> {
  const response = await call(worker, '/v1/conversations', {})
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

/** Sends a message (or a regenerate) with this `traceparent`, and reads its answer to the end. */
async function answer(
  id: string,
  body: unknown,
  traceparent: string,
  { op = 'messages', worker = traced }: { op?: string; worker?: TestWorker } = {},
) {
  const response = await call(worker, `/v1/conversations/${id}/${op}`, body, { traceparent })
  expect(response.status).toBe(200)
  return payloads(await readSse(response))
}

const ask = (model: string, content = PROMPT) => ({ model, turn: { role: 'user', content } })

/** The one span of trace `traceId`, once the collector has it. */
async function spanOf(traceId: string): Promise<OtlpSpan> {
  const of = () => collector.spans().filter((span) => span.traceId === traceId)
  await collector.until(() => of().length > 0)
  const spans = of()
  expect(spans).toHaveLength(1)
  return spans[0]!
}

describe('durable conversations in workerd: traces', () => {
  it('sends each answer’s span with every GenAI attribute, continuing the caller’s trace, without content', async () => {
    const id = await create()
    const trace = newTrace()
    const events = await answer(id, { ...ask('test/priced'), maxTokens: 100 }, trace.header)
    expect(events.at(-1)?.event).toBe('done')
    const span = await spanOf(trace.traceId)
    expect(span).toMatchObject({ parentSpanId: trace.parent, name: 'chat priced', kind: 3 })
    expect(span.status.code).toBe(1)
    const attributes = attributesOf(span)
    // The span /v1/chat sends, and the conversation's id.
    expect(attributes).toMatchObject({
      ...PRICED_ANSWER_ATTRIBUTES,
      'gen_ai.request.max_tokens': { intValue: '100' },
      'gen_ai.conversation.id': { stringValue: id },
      'thinkwire.streamed': { boolValue: true },
    })
    expect(attributes['gen_ai.client.operation.duration']?.['doubleValue']).toBeGreaterThan(0)
    expect(attributes).toHaveProperty('gen_ai.client.operation.time_to_first_chunk')
    expect(attributes).not.toHaveProperty('error.type')
    const sent = JSON.stringify(collector.exports)
    expect(sent).toContain(trace.traceId)
    expect(sent).not.toContain(PROMPT)
    expect(sent).not.toContain(ANSWER)
  })

  it('traces a regenerate and the answer to a tool turn, each in the trace that started it', async () => {
    const id = await create()
    const asked = newTrace()
    const called = payloads(
      await readSse(
        await call(traced, `/v1/conversations/${id}/messages`, ask('test/tools'), {
          traceparent: asked.header,
        }),
      ),
    )
    expect(called.at(-1)?.event).toBe('done')
    const askedSpan = attributesOf(await spanOf(asked.traceId))
    expect(askedSpan['gen_ai.response.finish_reasons']).toEqual({
      arrayValue: { values: [{ stringValue: 'tool-calls' }] },
    })

    const result = { callId: 'call_1', name: 'lookup', output: { found: true } }
    const continued = newTrace()
    await answer(
      id,
      { model: 'test/priced', turn: { role: 'tool', results: [result] } },
      continued.header,
    )
    const regenerated = newTrace()
    await answer(id, { model: 'test/priced' }, regenerated.header, { op: 'regenerate' })

    for (const trace of [continued, regenerated]) {
      const span = await spanOf(trace.traceId)
      expect(span).toMatchObject({ parentSpanId: trace.parent, name: 'chat priced' })
      expect(attributesOf(span)).toMatchObject({
        'gen_ai.conversation.id': { stringValue: id },
        'gen_ai.usage.output_tokens': { intValue: '50' },
      })
    }
  })

  it('marks a failed answer’s span with error status and the error type', async () => {
    const id = await create()
    const trace = newTrace()
    const events = await answer(id, ask('test/break'), trace.header)
    expect(events.at(-1)?.event).toBe('error')
    const span = await spanOf(trace.traceId)
    expect(span.status).toEqual({ code: 2, message: 'server' })
    const attributes = attributesOf(span)
    expect(attributes).toMatchObject({
      'error.type': { stringValue: 'server' },
      'gen_ai.request.model': { stringValue: 'break' },
      'gen_ai.conversation.id': { stringValue: id },
    })
    expect(attributes).toHaveProperty('gen_ai.client.operation.time_to_first_chunk')
    expect(attributes).not.toHaveProperty('gen_ai.usage.output_tokens')
    expect(JSON.stringify(span)).not.toContain('partial answer')
  })

  it('ends a stopped answer’s span with the finish reason aborted', async () => {
    const id = await create()
    const trace = newTrace()
    const response = await call(traced, `/v1/conversations/${id}/messages`, ask('test/slow'), {
      traceparent: trace.header,
    })
    expect(response.status).toBe(200)
    await readUntil(response, (seen) => seen.events.some((event) => event.event === 'text'))
    expect((await call(traced, `/v1/conversations/${id}/stop`, {})).status).toBe(204)
    const span = await spanOf(trace.traceId)
    expect(span.status.code).toBe(1)
    const attributes = attributesOf(span)
    expect(attributes['gen_ai.response.finish_reasons']).toEqual({
      arrayValue: { values: [{ stringValue: 'aborted' }] },
    })
    expect(attributes).not.toHaveProperty('error.type')
    await response.body?.cancel()
  })

  it('sends a span under a caller’s unsampled trace, and a new trace without a traceparent', async () => {
    const id = await create()
    const trace = newTrace()
    await answer(id, ask('test/priced'), `00-${trace.traceId}-${trace.parent}-00`)
    // The relay decides what it records: the caller's unsampled trace is only the parent.
    expect(await spanOf(trace.traceId)).toMatchObject({ parentSpanId: trace.parent })
    const untraced = await call(traced, `/v1/conversations/${id}/messages`, ask('test/priced'))
    expect(payloads(await readSse(untraced)).at(-1)?.event).toBe('done')
    const ofConversation = () =>
      collector
        .spans()
        .filter((span) => attributesOf(span)['gen_ai.conversation.id']?.['stringValue'] === id)
    await collector.until(() => ofConversation().length > 1)
    const fresh = ofConversation().filter((span) => span.traceId !== trace.traceId)
    expect(fresh).toHaveLength(1)
    expect(fresh[0]!.parentSpanId).toBeUndefined()
  })

  it('puts the conversation and the answer in the span when content capture is on', async () => {
    const id = await create(captured)
    const trace = newTrace()
    await answer(id, ask('test/priced'), trace.header, { worker: captured })
    const attributes = attributesOf(await spanOf(trace.traceId))
    expect(attributes['gen_ai.input.messages']?.['stringValue']).toContain(PROMPT)
    expect(attributes['gen_ai.output.messages']?.['stringValue']).toContain(ANSWER)
  })
})
