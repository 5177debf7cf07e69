import type { JsonRecord } from '../../kit/json.ts'

/**
 * Gemini ends an answer that reached its per-request output limit, but is not finished, with
 * `finishReason: 'CONTINUATION'` and a `continuationToken` on the candidate (intermediate chunks
 * may carry checkpoint tokens too; the last one counts). Sending the same request again with
 * `continuationToken` set (on the SDK's config; the request's top-level field on the wire) resumes
 * it. The adapter does not resume on its own (the SDK's `automaticContinuation` is off, as the
 * adapter reads the body itself): the turn ends with `stopReason: 'length'` and
 * `stopDetails.category: 'CONTINUATION'`, and the token is kept after the turn's parts in its
 * items as `{ continuationToken }`, the candidate's own field, so nothing Gemini sent is lost.
 * It is not a part, so a replay of the turn leaves it out of `contents`. To resume, send the
 * conversation without that turn and `providerOptions: { gemini: { continuationToken } }`.
 */
export type ContinuationRecord = { continuationToken: string }

/** The items record that keeps a turn's continuation token. */
export function continuationRecord(token: string): ContinuationRecord {
  return { continuationToken: token }
}

/** True for the record {@link continuationRecord} makes: a continuation token and nothing else. */
export function isContinuationRecord(record: JsonRecord): boolean {
  const keys = Object.keys(record)
  return keys.length === 1 && keys[0] === 'continuationToken'
}
