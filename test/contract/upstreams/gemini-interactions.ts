/**
 * The Gemini Interactions API (`POST /v1beta/interactions`, `stream: true`) as an upstream: its
 * streamed answer (SSE with `event:` lines, step events by index between lifecycle events) and the
 * rules it sets for a stateless request's `input` steps.
 */
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import { isJson, objects, stringField, type Json, type Wire } from './wire.ts'

/** The tool call the answer streams. */
export const interactionsToolCall = { name: 'get_weather', input: { city: 'Zürich', days: 2 } }

/** What the answer streams as thinking and as text. */
export const interactionsStreamed = {
  thinking: 'Wetter für Zürich 🌦 – zwei Tage.',
  text: 'Einen Moment, ich frage nach → ☂️.',
}

function event(data: Json): string {
  return `event: ${String(data['event_type'])}\ndata: ${JSON.stringify(data)}\n\n`
}

/**
 * A thought step (summary in two deltas, then its signature), a model output step, a function
 * call whose arguments come in two fragments, then `interaction.completed` with
 * `requires_action` and usage.
 */
export function interactionsAnswer(model: string): Wire {
  const delta = (index: number, value: Json) =>
    event({ event_type: 'step.delta', index, delta: value })
  return {
    events: [
      event({
        event_type: 'interaction.created',
        interaction: { id: '', status: 'in_progress', object: 'interaction', model },
      }),
      event({ event_type: 'step.start', index: 0, step: { type: 'thought' } }),
      delta(0, { type: 'thought_summary', content: { type: 'text', text: 'Wetter für Zürich 🌦' } }),
      delta(0, { type: 'thought_summary', content: { type: 'text', text: ' – zwei Tage.' } }),
      delta(0, { type: 'thought_signature', signature: 'Q2lRQ29udHJhY3QtaW50ZXJhY3Rpb25z' }),
      event({ event_type: 'step.stop', index: 0 }),
      event({ event_type: 'step.start', index: 1, step: { type: 'model_output' } }),
      delta(1, { type: 'text', text: 'Einen Moment, ' }),
      delta(1, { type: 'text', text: 'ich frage nach → ☂️.' }),
      event({ event_type: 'step.stop', index: 1 }),
      event({
        event_type: 'step.start',
        index: 2,
        step: { type: 'function_call', id: 'ctr7w2', name: 'get_weather', arguments: {} },
      }),
      delta(2, { type: 'arguments_delta', arguments: '{"city":"Zür' }),
      delta(2, { type: 'arguments_delta', arguments: 'ich","days":2}' }),
      event({ event_type: 'step.stop', index: 2 }),
      event({
        event_type: 'interaction.completed',
        interaction: {
          id: '',
          status: 'requires_action',
          object: 'interaction',
          model,
          usage: {
            total_input_tokens: 40,
            total_output_tokens: 14,
            total_thought_tokens: 30,
            total_cached_tokens: 8,
            total_tokens: 84,
          },
        },
      }),
    ],
    firstDelta: 2,
  }
}

/** A signed thought step, then `interaction.completed` with `incomplete`: the output limit. */
export function interactionsCutShort(model: string): Wire {
  const delta = (index: number, value: Json) =>
    event({ event_type: 'step.delta', index, delta: value })
  return {
    events: [
      event({
        event_type: 'interaction.created',
        interaction: { id: '', status: 'in_progress', object: 'interaction', model },
      }),
      event({ event_type: 'step.start', index: 0, step: { type: 'thought' } }),
      delta(0, { type: 'thought_summary', content: { type: 'text', text: 'Lange denken 🧠' } }),
      delta(0, { type: 'thought_signature', signature: 'Q2lRQ29udHJhY3QtY3V0' }),
      event({ event_type: 'step.stop', index: 0 }),
      event({
        event_type: 'interaction.completed',
        interaction: {
          id: '',
          status: 'incomplete',
          object: 'interaction',
          model,
          usage: { total_input_tokens: 40, total_thought_tokens: 512, total_tokens: 552 },
        },
      }),
    ],
    firstDelta: 2,
  }
}

/** The thought signatures of a turn: they reach a request only when its steps are replayed. */
export function interactionsMarkers(turn: AssistantTurn): string[] {
  return objects(turn.items?.data).flatMap((step) => {
    const signature = step['type'] === 'thought' ? stringField(step, 'signature') : undefined
    return signature === undefined ? [] : [signature]
  })
}

const STEP_TYPES = new Set([
  'user_input',
  'model_output',
  'thought',
  'function_call',
  'function_result',
  'google_search_call',
  'google_search_result',
  'url_context_call',
  'url_context_result',
  'code_execution_call',
  'code_execution_result',
])

/**
 * What the Interactions API refuses in a stateless streamed request: a body without `model`,
 * `stream: true` and `store: false`, an `input` that is not a list of steps of known types, a user
 * input or model output without content, a thought step without its signature, a function call
 * without an id, name and object arguments, and a function result that answers no call made
 * before it, or one answered twice.
 */
export function interactionsRequestProblems(body: unknown): string[] {
  if (!isJson(body) || !Array.isArray(body['input'])) return ['the body has no input list']
  const problems: string[] = []
  if (typeof body['model'] !== 'string') problems.push('the body has no model')
  if (body['stream'] !== true) problems.push('stream is not true')
  if (body['store'] !== false) problems.push('store is not false')
  const called = new Set<unknown>()
  const answered = new Set<unknown>()
  objects(body['input']).forEach((step, i) => {
    const at = `input[${i}]`
    const type = step['type']
    if (typeof type !== 'string' || !STEP_TYPES.has(type)) {
      problems.push(`${at}.type is ${String(type)}`)
      return
    }
    if ((type === 'user_input' || type === 'model_output') && objects(step['content']).length === 0)
      problems.push(`${at} (${type}) has no content`)
    if (type === 'thought' && typeof step['signature'] !== 'string')
      problems.push(`${at}: a thought step without its signature`)
    if (type === 'function_call') {
      if (typeof step['id'] !== 'string' || step['id'] === '') problems.push(`${at} has no id`)
      if (typeof step['name'] !== 'string') problems.push(`${at} has no name`)
      if (!isJson(step['arguments'])) problems.push(`${at}.arguments is not an object`)
      called.add(step['id'])
    }
    if (type === 'function_result') {
      const id = step['call_id']
      if (!called.has(id)) problems.push(`${at} answers ${String(id)}, which no call made before`)
      if (answered.has(id)) problems.push(`${at} answers ${String(id)} a second time`)
      answered.add(id)
      if (step['result'] === undefined) problems.push(`${at} has no result`)
    }
  })
  return problems
}
