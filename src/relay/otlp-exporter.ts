import type { RelaySpan, SpanExporter, SpanValue } from './tracing.ts'

/** Options of {@link otlpExporter}. */
export type OtlpExporterOptions = {
  /**
   * The collector's base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` gives it: spans go to
   * `<endpoint>/v1/traces`.
   */
  endpoint: string
  /** Sent with every export (an API key, say), as `OTEL_EXPORTER_OTLP_HEADERS` gives them. */
  headers?: Readonly<Record<string, string>> | undefined
  /** `service.name` of the resource. @defaultValue 'thinkwire-relay' */
  serviceName?: string | undefined
  /** @defaultValue globalThis.fetch */
  fetch?: typeof fetch | undefined
}

/** The span kind CLIENT and the status codes OK and ERROR, as OTLP numbers them. */
const SPAN_KIND_CLIENT = 3
const STATUS_OK = 1
const STATUS_ERROR = 2

/**
 * A span exporter that posts OTLP/HTTP JSON (`POST <endpoint>/v1/traces`), with nothing but
 * `fetch`: it runs in a Worker, Node and Deno. A failed export is dropped (telemetry never fails
 * an answer); the promise settles once the collector has answered.
 *
 * @example
 * ```ts
 * createRelay({ providers, tracing: { exporter: otlpExporter({ endpoint: 'http://localhost:4318' }) } })
 * ```
 */
export function otlpExporter(options: OtlpExporterOptions): SpanExporter {
  const url = `${options.endpoint.replace(/\/+$/, '')}/v1/traces`
  const send = options.fetch ?? ((input, init) => fetch(input, init))
  const resource = {
    attributes: [attribute('service.name', options.serviceName ?? 'thinkwire-relay')],
  }
  return {
    async export(spans) {
      const body = {
        resourceSpans: [
          { resource, scopeSpans: [{ scope: { name: 'thinkwire' }, spans: spans.map(otlpSpan) }] },
        ],
      }
      try {
        const response = await send(url, {
          method: 'POST',
          headers: { ...options.headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
        await response.body?.cancel()
      } catch {
        // The collector is down or unreachable: the spans are dropped.
      }
    },
  }
}

/**
 * `OTEL_EXPORTER_OTLP_HEADERS` as a record: `name=value` pairs separated by commas, values
 * percent-encoded (as the OpenTelemetry specification reads that setting).
 */
export function otlpHeaders(setting: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const pair of (setting ?? '').split(',')) {
    const at = pair.indexOf('=')
    if (at <= 0) continue
    const name = pair.slice(0, at).trim()
    const value = pair.slice(at + 1).trim()
    try {
      headers[name] = decodeURIComponent(value)
    } catch {
      headers[name] = value
    }
  }
  return headers
}

/** One span in OTLP JSON: hex ids, times as strings of nanoseconds, typed attribute values. */
function otlpSpan(span: RelaySpan) {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
    name: span.name,
    kind: SPAN_KIND_CLIENT,
    startTimeUnixNano: nanos(span.startTimeMs),
    endTimeUnixNano: nanos(span.endTimeMs),
    attributes: Object.entries(span.attributes).map(([key, value]) => attribute(key, value)),
    status:
      span.status.code === 'ok'
        ? { code: STATUS_OK }
        : { code: STATUS_ERROR, message: span.status.message },
  }
}

/** Milliseconds as a decimal string of nanoseconds (too large for a JSON number to keep exact). */
function nanos(ms: number): string {
  return `${Math.round(ms * 1000)}000`
}

function attribute(key: string, value: SpanValue) {
  return { key, value: anyValue(value) }
}

function anyValue(value: SpanValue): Record<string, unknown> {
  if (typeof value === 'string') return { stringValue: value }
  if (typeof value === 'boolean') return { boolValue: value }
  if (typeof value === 'number') {
    return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value }
  }
  return { arrayValue: { values: value.map((item) => ({ stringValue: item })) } }
}
