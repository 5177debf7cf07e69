import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export type OtlpAttribute = { key: string; value: Record<string, unknown> }

/** One span as OTLP/HTTP JSON carries it. */
export type OtlpSpan = {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: OtlpAttribute[]
  status: { code: number; message?: string }
}

export type OtlpBody = {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] }
    scopeSpans: { spans: OtlpSpan[] }[]
  }[]
}

/** What the fake collector received: each request's path, headers and JSON body. */
export type OtlpExport = { path: string; headers: Record<string, unknown>; body: OtlpBody }

/** A fake OTLP collector on a loopback port, keeping every export it receives. */
export type FakeCollector = {
  /** `http://127.0.0.1:<port>`. */
  url: string
  exports: OtlpExport[]
  /** Every span received so far, in order. */
  spans(): OtlpSpan[]
  /** Waits (up to 4 s) until `check` holds. */
  until(check: () => boolean): Promise<void>
  close(): Promise<void>
}

/** Starts a loopback HTTP server that answers every OTLP export with 200 and keeps it. */
export async function startCollector(): Promise<FakeCollector> {
  const exports: OtlpExport[] = []
  const server = createServer((request, response) => {
    let text = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (text += chunk))
    request.on('end', () => {
      exports.push({ path: request.url ?? '', headers: request.headers, body: JSON.parse(text) })
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans: () =>
      exports.flatMap((sent) =>
        sent.body.resourceSpans.flatMap((resource) =>
          resource.scopeSpans.flatMap((scope) => scope.spans),
        ),
      ),
    async until(check) {
      for (let i = 0; i < 400 && !check(); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A span's attributes as a record of OTLP values (`{ stringValue }`, `{ intValue }`, ...). */
export function attributesOf(span: OtlpSpan): Record<string, Record<string, unknown>> {
  return Object.fromEntries(span.attributes.map((attribute) => [attribute.key, attribute.value]))
}

/**
 * The attributes of the span of one answer of the test Workers' `test/priced` model (100 input and
 * 50 output tokens at $0.001 a token), as OTLP values: the same from `/v1/chat` and from a
 * conversation's object.
 */
export const PRICED_ANSWER_ATTRIBUTES = {
  'gen_ai.operation.name': { stringValue: 'chat' },
  'gen_ai.provider.name': { stringValue: 'test' },
  'gen_ai.request.model': { stringValue: 'priced' },
  'gen_ai.response.model': { stringValue: 'priced' },
  'gen_ai.usage.input_tokens': { intValue: '100' },
  'gen_ai.usage.output_tokens': { intValue: '50' },
  'gen_ai.response.finish_reasons': { arrayValue: { values: [{ stringValue: 'stop' }] } },
  'thinkwire.usage.cost_usd': { doubleValue: 0.15 },
}
