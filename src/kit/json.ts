/** A JSON object whose fields are not known yet. */
export type JsonRecord = { [key: string]: unknown }

/** True for a plain object (not null, not an array). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
