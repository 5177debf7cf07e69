import type { ResponseFormat, ToolChoice } from '../../core/adapter.ts'
import * as v from '../validate-json.ts'
import { effortLevel, given, type Efforts } from '../request-parts.ts'

/**
 * The options of a request that OpenAI's two APIs, Chat Completions and Responses, write alike,
 * read once. Where they differ is where a function's or a schema's fields are: Chat Completions
 * nests them in an object of their own (`nested`: `function`, `json_schema`), Responses does not.
 */

/** OpenAI's `ReasoningEffort` (every value but null) as the relay's `thinking` level. */
const EFFORTS: Efforts = {
  none: 'off',
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'max',
  // In openai 6.49's `ReasoningEffort`, though not in every model's documentation.
  max: 'max',
}
const CHOICES = ['auto', 'none', 'required'] as const

/** The relay's thinking level for OpenAI's `ReasoningEffort` at `field`. */
export function thinkingOf(effort: unknown, field: string): Efforts[string] {
  return effortLevel(effort, field, EFFORTS)
}

/** `tool_choice`: `auto`, `none` or `required`, or a function tool by its name. */
export function toolChoiceOf(value: unknown, nested?: 'function'): ToolChoice {
  if (typeof value === 'string') return v.oneOf(value, 'tool_choice', CHOICES)
  const choice = v.record(value, 'tool_choice')
  v.oneOf(v.own(choice, 'type'), 'tool_choice.type', ['function'])
  const { holder, at } = inside(choice, 'tool_choice', nested)
  return { name: v.string(v.own(holder, 'name'), `${at}.name`) }
}

/** The format of a JSON answer at `field` (`response_format`), or undefined for plain text. */
export function responseFormatOf(
  value: unknown,
  field: string,
  nested?: 'json_schema',
): ResponseFormat | undefined {
  const format = v.record(value, field)
  const type = v.oneOf(v.own(format, 'type'), `${field}.type`, [
    'text',
    'json_object',
    'json_schema',
  ])
  if (type === 'text') return undefined
  if (type === 'json_object') return { type: 'json' }
  const { holder, at } = inside(format, field, nested)
  const out: ResponseFormat = { type: 'json', name: v.string(v.own(holder, 'name'), `${at}.name`) }
  const schema = given(holder, 'schema')
  if (schema !== undefined) out.schema = v.record(schema, `${at}.schema`)
  return out
}

/** The object that holds the fields: `object` itself, or the one nested in it under `nested`. */
function inside(
  object: v.JsonRecord,
  field: string,
  nested: string | undefined,
): { holder: v.JsonRecord; at: string } {
  if (nested === undefined) return { holder: object, at: field }
  const at = `${field}.${nested}`
  return { holder: v.record(v.own(object, nested), at), at }
}
