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
