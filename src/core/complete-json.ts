import type { Adapter, JSONSchema } from './adapter.ts'
import { complete, type CompleteOptions } from './complete.ts'
import type { AssistantTurn, Conversation } from './conversation.ts'
import { ThinkwireError } from './errors.ts'
import { nearJsonValues, parseNearJson } from './json-repair.ts'
import { formatIssuePath, type StandardIssue, type StandardSchemaV1 } from './standard-schema.ts'

/** Options of {@link completeJson}. */
export type CompleteJsonOptions<T> = Omit<CompleteOptions, 'responseFormat'> & {
  /** A Standard Schema (zod 4, valibot, arktype, ...) the value must match. */
  schema?: StandardSchemaV1<unknown, T> | undefined
  /**
   * JSON Schema sent to the provider. @defaultValue the schema's own Standard JSON Schema, when it
   * has one
   */
  jsonSchema?: JSONSchema | undefined
  /** A name for the schema, for providers that want one. */
  name?: string | undefined
}

/** The value and the turn it came from. */
export type JsonResult<T> = { value: T; turn: AssistantTurn }

/**
 * Asks for JSON, repairs near-JSON (code fences, prose around the value, trailing commas) and
 * validates it against `schema`. Fails with an `invalid-output` error that names the first
 * failing path when the output cannot be made valid.
 *
 * @example
 * ```ts
 * const { value } = await completeJson(adapter, conversation, { schema: z.object({ city: z.string() }) })
 * ```
 */
export async function completeJson<T = unknown>(
  adapter: Adapter,
  conversation: Conversation,
  options: CompleteJsonOptions<T> = {},
): Promise<JsonResult<T>> {
  const { schema, jsonSchema, name, ...rest } = options
  const turn = await complete(adapter, conversation, {
    ...rest,
    responseFormat: { type: 'json', schema: jsonSchema ?? schemaOf(schema), name },
  })
  const parsed = parseNearJson(turn.text)
  if (!parsed.ok) {
    throw new ThinkwireError({
      kind: 'invalid-output',
      message: `${adapter.provider}/${adapter.model} did not answer with JSON: ${parsed.reason}`,
      provider: adapter.provider,
    })
  }
  if (schema === undefined) return { value: parsed.value as T, turn }
  // The first value in the output that matches the schema: prose may hold another one before it.
  let firstIssues: readonly StandardIssue[] | undefined
  for (const candidate of nearJsonValues(turn.text)) {
    const result = await schema['~standard'].validate(candidate)
    if (result.issues === undefined) return { value: result.value, turn }
    firstIssues ??= result.issues
  }
  const first = firstIssues?.[0]
  const detail = first === undefined ? 'invalid' : `at ${formatIssuePath(first)}: ${first.message}`
  const more = (firstIssues?.length ?? 0) > 1 ? ` (and ${firstIssues!.length - 1} more)` : ''
  throw new ThinkwireError({
    kind: 'invalid-output',
    message: `${adapter.provider}/${adapter.model} answered JSON that does not match the schema ${detail}${more}`,
    provider: adapter.provider,
  })
}

function schemaOf(schema: StandardSchemaV1 | undefined): JSONSchema | undefined {
  try {
    return schema?.['~standard'].jsonSchema?.output({ target: 'draft-2020-12' })
  } catch {
    // The library cannot express this schema as JSON Schema: ask for plain JSON mode.
    return undefined
  }
}
