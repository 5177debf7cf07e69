import type { RelaySpan, SpanExporter, SpanValue, TracingOptions } from './tracing.ts'

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
  /**
   * How long one export may take, in milliseconds, before it is aborted and its spans dropped,
   * so that a collector that never answers holds no connection past it.
   * @defaultValue 5000
   */
  timeoutMs?: number | undefined
  /** @defaultValue globalThis.fetch */
  fetch?: typeof fetch | undefined
}

/** What {@link OtlpExporterOptions.timeoutMs} is unless set, and the most it may be. */
const TIMEOUT_MS = 5000
const MAX_TIMEOUT_MS = 2 ** 31 - 1

/** The span kinds and the status codes OK and ERROR, as OTLP numbers them. */
const SPAN_KINDS = { internal: 1, client: 3 } as const
const STATUS_OK = 1
const STATUS_ERROR = 2

/**
 * A span exporter that posts OTLP/HTTP JSON (`POST <endpoint>/v1/traces`), with nothing but
 * `fetch`: it runs in a Worker, Node and Deno. A failed export is dropped (telemetry never fails
 * an answer); the promise settles once the collector has answered, or after `timeoutMs` (5 s by
 * default), when the request is aborted and its spans dropped. Throws a `TypeError` when
 * `timeoutMs` is not a whole number of milliseconds a timer takes.
 *
 * @example
 * ```ts
 * createRelay({ providers, tracing: { exporter: otlpExporter({ endpoint: 'http://localhost:4318' }) } })
 * ```
 */
export function otlpExporter(options: OtlpExporterOptions): SpanExporter {
  const url = `${options.endpoint.replace(/\/+$/, '')}/v1/traces`
  const send = options.fetch ?? ((input, init) => fetch(input, init))
  const headers = { ...options.headers, 'content-type': 'application/json' }
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS
  // What a timer takes: a whole number of milliseconds that fits 32 signed bits.
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new TypeError(
      `otlpExporter: timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${String(timeoutMs)}`,
    )
  }
  // What every export repeats (the resource and the scope) is written once, here.
  const service = attribute('service.name', options.serviceName ?? 'thinkwire-relay')
  const head = `{"resourceSpans":[{"resource":{"attributes":[${service}]},"scopeSpans":[{"scope":{"name":"thinkwire"},"spans":[`
  return {
    async export(spans) {
      if (spans.length === 0) return
      try {
        const response = await send(url, {
          method: 'POST',
          headers,
          body: `${head}${spans.map(otlpSpan).join(',')}]}]}]}`,
          signal: AbortSignal.timeout(timeoutMs),
        })
        await response.body?.cancel()
      } catch {
        // The collector is down, unreachable or too slow: the spans are dropped.
      }
    },
  }
}

/**
 * Tracing as OpenTelemetry's settings ask for it, `read(name)` giving a setting's value: spans to
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (OTLP/HTTP JSON) with `OTEL_EXPORTER_OTLP_HEADERS` and
 * `OTEL_SERVICE_NAME`, content only with `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`;
 * undefined when the endpoint is unset. Throws a `TypeError` naming the setting when the endpoint
 * is not an http(s) URL. The Worker reads its `env` so; any runtime can read its own settings.
 *
 * @example
 * ```ts
 * createRelay({ providers, tracing: otlpTracing((name) => process.env[name]) })
 * ```
 */
export function otlpTracing(
  read: (name: string) => string | undefined,
): TracingOptions | undefined {
  const endpoint = read('OTEL_EXPORTER_OTLP_ENDPOINT')?.trim() ?? ''
  if (endpoint === '') return undefined
  if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) {
    throw new TypeError('OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL')
  }
  const serviceName = read('OTEL_SERVICE_NAME')?.trim() ?? ''
  return {
    exporter: otlpExporter({
      endpoint,
      headers: otlpHeaders(read('OTEL_EXPORTER_OTLP_HEADERS')),
      serviceName: serviceName === '' ? undefined : serviceName,
    }),
    captureContent: read('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT')?.trim() === 'true',
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

/**
 * One span as OTLP JSON text: hex ids, times as strings of nanoseconds, typed attribute values.
 * Written straight to a string rather than built as objects for `JSON.stringify`: a span is about
 * twenty attributes, and the objects cost more than the text.
 */
function otlpSpan(span: RelaySpan): string {
  let out = `{"traceId":${JSON.stringify(span.traceId)},"spanId":${JSON.stringify(span.spanId)}`
  if (span.parentSpanId !== undefined) out += `,"parentSpanId":${JSON.stringify(span.parentSpanId)}`
  out += `,"name":${JSON.stringify(span.name)},"kind":${SPAN_KINDS[span.kind]}`
  out += `,"startTimeUnixNano":"${nanos(span.startTimeMs)}","endTimeUnixNano":"${nanos(span.endTimeMs)}","attributes":[`
  let first = true
  for (const key in span.attributes) {
    out += `${first ? '' : ','}${attribute(key, span.attributes[key]!)}`
    first = false
  }
  const { status } = span
  return status.code === 'ok'
    ? `${out}],"status":{"code":${STATUS_OK}}}`
    : `${out}],"status":{"code":${STATUS_ERROR},"message":${JSON.stringify(status.message)}}}`
}

/** Milliseconds as a decimal string of nanoseconds (too large for a JSON number to keep exact). */
function nanos(ms: number): string {
  return `${Math.round(ms * 1000)}000`
}

/** `{"key":…,"value":{…}}`: an OTLP `KeyValue`, its value typed as OTLP's `AnyValue`. */
function attribute(key: string, value: SpanValue): string {
  return `{"key":${JSON.stringify(key)},"value":${anyValue(value)}}`
}

function anyValue(value: SpanValue): string {
  if (typeof value === 'string') return `{"stringValue":${JSON.stringify(value)}}`
  if (typeof value === 'boolean') return `{"boolValue":${value}}`
  if (typeof value === 'number') {
    // A 64-bit integer is a string in OTLP JSON; a double that is not finite has no JSON form.
    return Number.isInteger(value)
      ? `{"intValue":"${value}"}`
      : `{"doubleValue":${JSON.stringify(value)}}`
  }
  return `{"arrayValue":{"values":[${value.map((item) => `{"stringValue":${JSON.stringify(item)}}`).join(',')}]}}`
}
