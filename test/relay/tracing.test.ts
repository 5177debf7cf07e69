/**
 * Traces of the relay: one span per model call with the OpenTelemetry GenAI attributes, captured
 * here by an in-memory exporter; the caller's `traceparent` continued; no prompt or answer text
 * unless asked for; and the OTLP/HTTP JSON the exporter posts.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import type { Adapter } from '../../src/core/adapter.ts'
import { providerError } from '../../src/core/errors.ts'
import type { Pricing } from '../../src/core/pricing.ts'
import { guardStream } from '../../src/kit/guard-stream.ts'
import {
  createRelay,
  otlpExporter,
  type Relay,
  type RelaySpan,
  type SpanExporter,
} from '../../src/relay/index.ts'
import { otlpHeaders, otlpTracing } from '../../src/relay/otlp-exporter.ts'
import { callStart, parseTraceparent, traceCall } from '../../src/relay/tracing.ts'
import { chat, doneOf, streamed } from './helpers.ts'

const PROMPT = 'What is the secret word?'
const ANSWER = 'The secret word is swordfish.'
const PRICE: Pricing = { input: 1000, output: 1000, cachedInput: 100 }

/** An adapter that answers {@link ANSWER} with full usage, priced, or fails before its first event. */
function model(fails = false): Adapter {
  return {
    provider: 'acme',
    model: 'm-1',
    capabilities: { thinking: { mode: 'none' }, tools: false, json: false, pricing: PRICE },
    stream: (_, options) =>
      guardStream({ provider: 'acme', model: 'm-1', options, pricing: PRICE }, async function* () {
        if (fails) throw providerError('overloaded', 'acme', `busy while reading "${PROMPT}"`)
        yield { type: 'thinking', text: 'Hmm.' }
        yield { type: 'text', text: ANSWER }
        return {
          usage: {
            inputTokens: 100,
            outputTokens: 40,
            cacheReadTokens: 60,
            cacheWriteTokens: 10,
            reasoningTokens: 30,
          },
          stopReason: 'stop',
          items: [{ raw: 'record' }],
        }
      }),
  }
}

/** Spans kept in memory: what the relay exported, in order. */
function memoryExporter(): SpanExporter & { spans: RelaySpan[] } {
  const spans: RelaySpan[] = []
  return { spans, export: (batch) => void spans.push(...batch) }
}

const body = {
  model: 'acme/m-1',
  conversation: { system: 'Keep secrets.', turns: [{ role: 'user', content: PROMPT }] },
  maxTokens: 500,
  temperature: 0.5,
}

/** POSTs {@link body} to `/v1/chat`, keeping what the relay hands `waitUntil` in `waited`. */
function chatWithin(relay: Relay, waited: Promise<unknown>[]): Promise<Response> {
  return relay.fetch(
    new Request('http://relay.test/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    { waitUntil: (promise) => void waited.push(promise) },
  )
}

describe('relay traces', () => {
  it('exports one client span per call with every GenAI attribute, and no content', async () => {
    const exporter = memoryExporter()
    const waited: Promise<unknown>[] = []
    const relay = createRelay({ providers: { acme: [model()] }, tracing: { exporter } })
    const response = await chatWithin(relay, waited)
    const turn = doneOf(await streamed(response))
    expect(waited).toHaveLength(1)
    await Promise.all(waited)
    expect(exporter.spans).toHaveLength(1)
    const span = exporter.spans[0]!
    expect(span).toMatchObject({ name: 'chat m-1', kind: 'client', status: { code: 'ok' } })
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/)
    expect(span.parentSpanId).toBeUndefined()
    expect(span.endTimeMs).toBeGreaterThanOrEqual(span.startTimeMs)
    const { attributes } = span
    expect(attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'acme',
      'gen_ai.request.model': 'm-1',
      'gen_ai.response.model': 'm-1',
      'gen_ai.request.max_tokens': 500,
      'gen_ai.request.temperature': 0.5,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 40,
      'gen_ai.usage.cache_read.input_tokens': 60,
      'gen_ai.usage.cache_creation.input_tokens': 10,
      'gen_ai.usage.reasoning.output_tokens': 30,
      'thinkwire.usage.cost_usd': turn.usage.cost,
      'thinkwire.streamed': true,
    })
    // (30 × $1,000 + 60 × $100 + 10 × $1,000 + 40 × $1,000) / 1e6
    expect(turn.usage.cost).toBe(0.086)
    const duration = attributes['gen_ai.client.operation.duration'] as number
    const firstChunk = attributes['gen_ai.client.operation.time_to_first_chunk'] as number
    expect(firstChunk).toBeGreaterThanOrEqual(0)
    expect(duration).toBeGreaterThanOrEqual(firstChunk)
    // No text of the conversation or the answer anywhere in the span.
    const text = JSON.stringify(span)
    for (const secret of [PROMPT, ANSWER, 'Keep secrets.', 'Hmm.', 'record']) {
      expect(text).not.toContain(secret)
    }
    expect(attributes).not.toHaveProperty('gen_ai.input.messages')
  })

  it('continues the trace of a traceparent, sampled or not, and starts one for an invalid header', async () => {
    const exporter = memoryExporter()
    const relay = createRelay({ providers: { acme: [model()] }, tracing: { exporter } })
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
    const parentId = '00f067aa0ba902b7'
    await streamed(
      await chat(relay, body, { headers: { traceparent: `00-${traceId}-${parentId}-01` } }),
    )
    // The relay decides what it records: a client's unsampled trace is only the parent.
    await streamed(
      await chat(relay, body, { headers: { traceparent: `00-${traceId}-${parentId}-00` } }),
    )
    await streamed(await chat(relay, body, { headers: { traceparent: 'garbage' } }))
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(exporter.spans).toHaveLength(3)
    for (const span of exporter.spans.slice(0, 2)) {
      expect(span).toMatchObject({ traceId, parentSpanId: parentId })
      expect(span.spanId).not.toBe(parentId)
      expect(span.attributes['gen_ai.usage.output_tokens']).toBe(40)
    }
    // An invalid header starts a new trace.
    expect(exporter.spans[2]!.traceId).not.toBe(traceId)
    expect(exporter.spans[2]!.parentSpanId).toBeUndefined()
  })

  it('puts the stop sequences in the span only when captureContent is on', async () => {
    const stop = ['SECRET-STOP']
    for (const captureContent of [false, true]) {
      const exporter = memoryExporter()
      const relay = createRelay({
        providers: { acme: [model()] },
        tracing: { exporter, captureContent },
      })
      await streamed(await chat(relay, { ...body, stop }))
      await new Promise((resolve) => setTimeout(resolve, 0))
      const span = exporter.spans[0]!
      if (captureContent) {
        expect(span.attributes['gen_ai.request.stop_sequences']).toEqual(stop)
      } else {
        expect(span.attributes).not.toHaveProperty('gen_ai.request.stop_sequences')
        expect(JSON.stringify(span)).not.toContain('SECRET-STOP')
      }
    }
  })

  it('puts the conversation and the answer in the span only when captureContent is on', async () => {
    const exporter = memoryExporter()
    const relay = createRelay({
      providers: { acme: [model()] },
      tracing: { exporter, captureContent: true },
    })
    await streamed(await chat(relay, body))
    await new Promise((resolve) => setTimeout(resolve, 0))
    const { attributes } = exporter.spans[0]!
    expect(attributes['gen_ai.system_instructions']).toBe('Keep secrets.')
    expect(JSON.parse(attributes['gen_ai.input.messages'] as string)).toEqual([
      { role: 'user', content: PROMPT },
    ])
    expect(JSON.parse(attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', text: ANSWER },
    ])
  })

  it('marks a failed call with its error type, and no upstream message', async () => {
    const exporter = memoryExporter()
    const relay = createRelay({ providers: { acme: [model(true)] }, tracing: { exporter } })
    const response = await chat(relay, body)
    expect(response.status).toBe(503)
    await new Promise((resolve) => setTimeout(resolve, 0))
    const span = exporter.spans[0]!
    expect(span.status).toEqual({ code: 'error', message: 'overloaded' })
    expect(span.attributes['error.type']).toBe('overloaded')
    expect(span.attributes).not.toHaveProperty('gen_ai.usage.input_tokens')
    expect(JSON.stringify(span)).not.toContain(PROMPT)
  })

  it('exports nothing and costs nothing when tracing is off', async () => {
    const waited: Promise<unknown>[] = []
    const relay = createRelay({ providers: { acme: [model()] } })
    const response = await chatWithin(relay, waited)
    await streamed(response)
    expect(waited).toEqual([])
  })
})

describe('traceCall', () => {
  const call = {
    provider: 'acme',
    model: 'm-1',
    options: {},
    conversation: { turns: [{ role: 'user' as const, content: PROMPT }] },
    streamed: true,
    conversationId: 'conv-1',
  }
  const parent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'

  it('traces nothing when tracing is off', () => {
    expect(traceCall(undefined, parent, call, callStart(), undefined)).toBeUndefined()
  })

  it('records the span of a call whose caller’s trace is not sampled, under the caller’s span', async () => {
    const exporter = memoryExporter()
    const waited: Promise<unknown>[] = []
    const unsampled = parent.replace(/01$/, '00')
    const trace = traceCall({ exporter }, unsampled, call, callStart(), (p) => void waited.push(p))
    trace?.end({ finishReason: 'stop' })
    await Promise.all(waited)
    expect(exporter.spans).toHaveLength(1)
    expect(exporter.spans[0]).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentSpanId: '00f067aa0ba902b7',
    })
  })

  it('ends a stopped call’s span once, with its finish reason, the conversation and no usage', async () => {
    const exporter = memoryExporter()
    const waited: Promise<unknown>[] = []
    const trace = traceCall({ exporter }, parent, call, callStart(), (p) => void waited.push(p))!
    trace.firstChunk()
    trace.end({ finishReason: 'aborted' })
    trace.end({ error: { kind: 'server' } })
    await Promise.all(waited)
    expect(waited).toHaveLength(1)
    expect(exporter.spans).toHaveLength(1)
    const span = exporter.spans[0]!
    expect(span).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentSpanId: '00f067aa0ba902b7',
      status: { code: 'ok' },
    })
    expect(span.attributes).toMatchObject({
      'gen_ai.conversation.id': 'conv-1',
      'gen_ai.response.finish_reasons': ['aborted'],
    })
    expect(span.attributes).toHaveProperty('gen_ai.client.operation.time_to_first_chunk')
    expect(span.attributes).not.toHaveProperty('gen_ai.usage.output_tokens')
    expect(span.attributes).not.toHaveProperty('error.type')
  })

  it('keeps an exporter that throws away from the call', async () => {
    const waited: Promise<unknown>[] = []
    const exporter: SpanExporter = {
      export() {
        throw new Error('collector down')
      },
    }
    const trace = traceCall({ exporter }, null, call, callStart(), (p) => void waited.push(p))!
    expect(() => trace.end({ error: { kind: 'server' } })).not.toThrow()
    await expect(Promise.all(waited)).resolves.toBeDefined()
  })
})

describe('otlpTracing', () => {
  const settings = (values: Record<string, string>) => (name: string) => values[name]

  it('traces nothing without OTEL_EXPORTER_OTLP_ENDPOINT, and refuses an endpoint that is not http(s)', () => {
    expect(otlpTracing(settings({}))).toBeUndefined()
    expect(otlpTracing(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }))).toBeUndefined()
    expect(() => otlpTracing(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://x' }))).toThrow(
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL',
    )
  })

  it('captures content only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is true', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }
    expect(otlpTracing(settings(endpoint))?.captureContent).toBe(false)
    const on = { ...endpoint, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }
    expect(otlpTracing(settings(on))?.captureContent).toBe(true)
  })
})

describe('traceparent', () => {
  it('reads version 00 and later versions, and refuses what the W3C spec says to ignore', () => {
    const id = '4bf92f3577b34da6a3ce929d0e0e4736'
    expect(parseTraceparent(`00-${id}-00f067aa0ba902b7-01`)).toEqual({
      traceId: id,
      spanId: '00f067aa0ba902b7',
      sampled: true,
    })
    expect(parseTraceparent(`01-${id}-00f067aa0ba902b7-03-extra`)?.sampled).toBe(true)
    expect(parseTraceparent(`00-${id}-00f067aa0ba902b7-01-extra`)).toBeUndefined()
    expect(parseTraceparent(`ff-${id}-00f067aa0ba902b7-01`)).toBeUndefined()
    expect(parseTraceparent(`00-${'0'.repeat(32)}-00f067aa0ba902b7-01`)).toBeUndefined()
    expect(parseTraceparent(`00-${id}-${'0'.repeat(16)}-01`)).toBeUndefined()
    expect(parseTraceparent(null)).toBeUndefined()
  })
})

describe('otlpExporter', () => {
  it('posts OTLP/HTTP JSON to <endpoint>/v1/traces with the given headers', async () => {
    const posted: { url: string; init: RequestInit }[] = []
    const exporter = otlpExporter({
      endpoint: 'https://collector.test/otlp/',
      headers: otlpHeaders('x-api-key=k%3D1, x-team = relay'),
      serviceName: 'edge',
      fetch: async (url, init) => {
        posted.push({ url: String(url), init: init! })
        return new Response(null, { status: 200 })
      },
    })
    await exporter.export([
      {
        traceId: 'a'.repeat(32),
        spanId: 'b'.repeat(16),
        parentSpanId: 'c'.repeat(16),
        name: 'chat m',
        kind: 'client',
        startTimeMs: 1_700_000_000_000.5,
        endTimeMs: 1_700_000_000_250,
        attributes: { s: 'x', i: 3, d: 0.25, b: true, a: ['stop'] },
        status: { code: 'error', message: 'timeout' },
      },
    ])
    expect(posted).toHaveLength(1)
    expect(posted[0]!.url).toBe('https://collector.test/otlp/v1/traces')
    expect(posted[0]!.init.headers).toEqual({
      'x-api-key': 'k=1',
      'x-team': 'relay',
      'content-type': 'application/json',
    })
    expect(JSON.parse(posted[0]!.init.body as string)).toEqual({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'edge' } }] },
          scopeSpans: [
            {
              scope: { name: 'thinkwire' },
              spans: [
                {
                  traceId: 'a'.repeat(32),
                  spanId: 'b'.repeat(16),
                  parentSpanId: 'c'.repeat(16),
                  name: 'chat m',
                  kind: 3,
                  startTimeUnixNano: '1700000000000500000',
                  endTimeUnixNano: '1700000000250000000',
                  attributes: [
                    { key: 's', value: { stringValue: 'x' } },
                    { key: 'i', value: { intValue: '3' } },
                    { key: 'd', value: { doubleValue: 0.25 } },
                    { key: 'b', value: { boolValue: true } },
                    { key: 'a', value: { arrayValue: { values: [{ stringValue: 'stop' }] } } },
                  ],
                  status: { code: 2, message: 'timeout' },
                },
              ],
            },
          ],
        },
      ],
    })
  })

  it('sends a tool run’s span as OTLP kind internal', async () => {
    const bodies: string[] = []
    const exporter = otlpExporter({
      endpoint: 'https://collector.test',
      fetch: async (_url, init) => {
        bodies.push(init!.body as string)
        return new Response(null, { status: 200 })
      },
    })
    const base = {
      traceId: 'a'.repeat(32),
      spanId: 'b'.repeat(16),
      startTimeMs: 1,
      endTimeMs: 2,
      attributes: {},
      status: { code: 'ok' as const },
    }
    await exporter.export([
      { ...base, name: 'execute_tool', kind: 'internal' },
      { ...base, name: 'chat m', kind: 'client' },
    ])
    const sent = JSON.parse(bodies[0]!) as {
      resourceSpans: { scopeSpans: { spans: { kind: number }[] }[] }[]
    }
    expect(sent.resourceSpans[0]!.scopeSpans[0]!.spans.map((span) => span.kind)).toEqual([1, 3])
  })

  it('gives up on a collector that never answers, closing its connection, and the answer is unaffected', async () => {
    // A collector that reads each export and never answers it.
    const requests: IncomingMessage[] = []
    const collector = createServer((request) => void requests.push(request))
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve))
    const { port } = collector.address() as AddressInfo
    try {
      // Long enough for the export to reach the collector on a busy machine (at 50 ms, a run
      // beside the whole suite gave up before it connected), short for a test.
      const exporter = otlpExporter({ endpoint: `http://127.0.0.1:${port}`, timeoutMs: 1000 })
      const waited: Promise<unknown>[] = []
      const relay = createRelay({ providers: { acme: [model()] }, tracing: { exporter } })
      const response = await chatWithin(relay, waited)
      expect(doneOf(await streamed(response)).text).toBe(ANSWER)
      expect(waited).toHaveLength(1)
      // Without a timeout this never settles (and the test times out).
      await Promise.all(waited)
      expect(requests).toHaveLength(1)
      const { socket } = requests[0]!
      if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve))
    } finally {
      collector.closeAllConnections()
      await new Promise((resolve) => collector.close(resolve))
    }
  })

  it('refuses a timeout a timer cannot take, naming it', () => {
    for (const timeoutMs of [0, -1, 1.5, Number.NaN, Infinity, 2 ** 31]) {
      expect(() => otlpExporter({ endpoint: 'http://127.0.0.1:4318', timeoutMs })).toThrow(
        `otlpExporter: timeoutMs must be a whole number of milliseconds from 1 to 2147483647, got ${timeoutMs}`,
      )
    }
  })

  it('drops the spans when the collector cannot be reached', async () => {
    const exporter = otlpExporter({
      endpoint: 'https://collector.test',
      fetch: () => Promise.reject(new TypeError('fetch failed')),
    })
    await expect(exporter.export([])).resolves.toBeUndefined()
  })
})
