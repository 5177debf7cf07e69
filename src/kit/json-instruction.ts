import type { ResponseFormat } from '../core/adapter.ts'

const JSON_INSTRUCTION = 'Answer with one JSON value only: no prose, no code fences.'

/**
 * The system prompt `system` with JSON asked for at its end (with `format.schema`, when given, as
 * the schema the value must match): for a model without a JSON mode (`capabilities.json: false`),
 * or whose JSON mode takes no schema. An adapter author sends it in place of the system prompt
 * when the call has a `responseFormat`.
 *
 * @example
 * ```ts
 * const system = options.responseFormat
 *   ? withJsonInstruction(conversation.system, options.responseFormat)
 *   : conversation.system
 * ```
 */
export function withJsonInstruction(system: string | undefined, format: ResponseFormat): string {
  const schema =
    format.schema === undefined
      ? ''
      : ` It must match this JSON Schema: ${JSON.stringify(format.schema)}`
  const ask = JSON_INSTRUCTION + schema
  return system === undefined || system === '' ? ask : `${system}\n\n${ask}`
}
