import { isRecord, type JsonRecord } from '../../kit/json.ts'

/** Response headers, as `httpError` reads them. */
export type HeaderSource = { get(name: string): string | null }

/** The objects of a Google error body's `details` (`google.rpc` messages such as `RetryInfo`). */
export function errorDetails(body: JsonRecord | undefined): JsonRecord[] {
  const list = body?.['details']
  return Array.isArray(list) ? list.filter(isRecord) : []
}

/**
 * The headers `httpError` reads for the Google error `body`: its `google.rpc.RetryInfo` delay as
 * `retry-after-ms`, which says the same as that header would and takes precedence, else `headers`.
 */
export function withRetryInfo(
  body: JsonRecord | undefined,
  headers: HeaderSource | undefined,
): HeaderSource | undefined {
  const delay = retryDelayMs(body)
  if (delay === undefined) return headers
  return { get: (name) => (name === 'retry-after-ms' ? String(delay) : null) }
}

/**
 * `RetryInfo.retryDelay` (a protobuf duration such as `"34.4s"`) in milliseconds. The Interactions
 * API may write it `retry_delay`.
 */
function retryDelayMs(body: JsonRecord | undefined): number | undefined {
  for (const detail of errorDetails(body)) {
    const type = detail['@type']
    const delay = detail['retryDelay'] ?? detail['retry_delay']
    if (typeof type !== 'string' || !type.endsWith('google.rpc.RetryInfo')) continue
    if (typeof delay !== 'string') continue
    const match = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim())
    if (match !== null) return Math.round(Number(match[1]) * 1000)
  }
  return undefined
}
