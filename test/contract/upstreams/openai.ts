/**
 * The OpenAI Responses API as an upstream: its streamed answer (typed SSE events with sequence
 * numbers) and the rules it sets for a request's `input` items.
 */
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import { sse } from '../../helpers/replay-fetch.ts'
import { isJson, objects, stringField, type Json, type Wire } from './wire.ts'

/** The tool call the answer streams. */
export const openaiToolCall = { name: 'get_forecast', input: { city: 'Oslo', days: 2 } }

/** What the answer streams as thinking (its reasoning summary) and as text. */
export const openaiStreamed = {
  thinking: '**Plan** → forecast for Oslo é',
  text: 'Looking up Oslo → two days ❄️.',
}

function events(bodies: ({ type: string } & Json)[]): string[] {
  return bodies.map((body, sequence_number) => sse([[body.type, { ...body, sequence_number }]]))
}

function response(model: string, status: string, output: object[], usage: object | null) {
  return {
    id: 'resp_contract',
    object: 'response',
    created_at: 1767225600,
    status,
    model,
    output,
    reasoning: { effort: 'high', summary: 'auto' },
    store: false,
    usage,
  }
}

const reasoning = {
  id: 'rs_contract',
  type: 'reasoning',
  summary: [{ type: 'summary_text', text: '**Plan** → forecast for Oslo é' }],
  encrypted_content: 'gAAAAABpContractOpenAIEncrypted==',
}
const message = {
  id: 'msg_contract',
  type: 'message',
  status: 'completed',
  role: 'assistant',
  content: [
    { type: 'output_text', annotations: [], logprobs: [], text: 'Looking up Oslo → two days ❄️.' },
  ],
}
const call = {
  id: 'fc_contract',
  type: 'function_call',
  status: 'completed',
  call_id: 'call_contract_oslo',
  name: 'get_forecast',
  arguments: '{"city":"Oslo","days":2}',
}

/** Reasoning summary, encrypted reasoning, a message and a function call whose arguments stream. */
export function openaiAnswer(model: string): Wire {
  const msg = { item_id: message.id, output_index: 1, content_index: 0 }
  const fc = { item_id: call.id, output_index: 2 }
  const summary = { item_id: reasoning.id, output_index: 0, summary_index: 0 }
  return {
    events: events([
      { type: 'response.created', response: response(model, 'in_progress', [], null) },
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { id: reasoning.id, type: 'reasoning', summary: [] },
      },
      {
        type: 'response.reasoning_summary_part.added',
        ...summary,
        part: { type: 'summary_text', text: '' },
      },
      { type: 'response.reasoning_summary_text.delta', ...summary, delta: '**Plan** → ' },
      { type: 'response.reasoning_summary_text.delta', ...summary, delta: 'forecast for Oslo é' },
      {
        type: 'response.reasoning_summary_text.done',
        ...summary,
        text: reasoning.summary[0]!.text,
      },
      { type: 'response.reasoning_summary_part.done', ...summary, part: reasoning.summary[0] },
      { type: 'response.output_item.done', output_index: 0, item: reasoning },
      {
        type: 'response.output_item.added',
        output_index: 1,
        item: { ...message, status: 'in_progress', content: [] },
      },
      {
        type: 'response.content_part.added',
        ...msg,
        part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
      },
      { type: 'response.output_text.delta', ...msg, delta: 'Looking up Oslo → ', logprobs: [] },
      { type: 'response.output_text.delta', ...msg, delta: 'two days ❄️.', logprobs: [] },
      {
        type: 'response.output_text.done',
        ...msg,
        text: message.content[0]!.text,
        logprobs: [],
      },
      { type: 'response.content_part.done', ...msg, part: message.content[0] },
      { type: 'response.output_item.done', output_index: 1, item: message },
      {
        type: 'response.output_item.added',
        output_index: 2,
        item: { ...call, status: 'in_progress', arguments: '' },
      },
      { type: 'response.function_call_arguments.delta', ...fc, delta: '{"city":"Os' },
      { type: 'response.function_call_arguments.delta', ...fc, delta: 'lo","days":2}' },
      { type: 'response.function_call_arguments.done', ...fc, arguments: call.arguments },
      { type: 'response.output_item.done', output_index: 2, item: call },
      {
        type: 'response.completed',
        response: response(model, 'completed', [reasoning, message, call], {
          input_tokens: 80,
          input_tokens_details: { cached_tokens: 16 },
          output_tokens: 70,
          output_tokens_details: { reasoning_tokens: 32 },
          total_tokens: 150,
        }),
      },
    ]),
    firstDelta: 3,
  }
}

/** Reasoning, then `response.incomplete`: the output limit ended the answer after its reasoning. */
export function openaiCutShort(model: string): Wire {
  const summary = { item_id: reasoning.id, output_index: 0, summary_index: 0 }
  return {
    events: events([
      { type: 'response.created', response: response(model, 'in_progress', [], null) },
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { id: reasoning.id, type: 'reasoning', summary: [] },
      },
      { type: 'response.reasoning_summary_text.delta', ...summary, delta: 'Oslo → long think 🧠' },
      { type: 'response.output_item.done', output_index: 0, item: reasoning },
      {
        type: 'response.incomplete',
        response: {
          ...response(model, 'incomplete', [reasoning], {
            input_tokens: 80,
            output_tokens: 512,
            output_tokens_details: { reasoning_tokens: 512 },
            total_tokens: 592,
          }),
          incomplete_details: { reason: 'max_output_tokens' },
        },
      },
    ]),
    firstDelta: 2,
  }
}

/** A reasoning delta, then `response.failed` (the API's way of failing a started stream). */
export function openaiFailure(model: string): Wire {
  const summary = { item_id: reasoning.id, output_index: 0, summary_index: 0 }
  return {
    events: events([
      { type: 'response.created', response: response(model, 'in_progress', [], null) },
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { id: reasoning.id, type: 'reasoning', summary: [] },
      },
      { type: 'response.reasoning_summary_text.delta', ...summary, delta: 'Thinking… ' },
      {
        type: 'response.failed',
        response: {
          ...response(model, 'failed', [], null),
          error: {
            code: 'server_error',
            message: 'The server had an error processing your request.',
          },
        },
      },
    ]),
    firstDelta: 2,
  }
}

/** The encrypted reasoning of a turn: it reaches a request only when its items are replayed. */
export function openaiMarkers(turn: AssistantTurn): string[] {
  return objects(turn.items?.data).flatMap((item) => {
    const encrypted = stringField(item, 'encrypted_content')
    return encrypted === undefined ? [] : [encrypted]
  })
}

/** The records of the API's hosted tools: their input form requires the item's `id`. */
const HOSTED_RECORDS = [
  'web_search_call',
  'file_search_call',
  'code_interpreter_call',
  'image_generation_call',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
]

const INPUT_TYPES = [
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
  'compaction',
  'computer_call',
  'computer_call_output',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  ...HOSTED_RECORDS,
]
/** A client-run call's type, and the type of the output that answers it. */
const OUTPUT_OF: Readonly<Record<string, string>> = {
  function_call: 'function_call_output',
  custom_tool_call: 'custom_tool_call_output',
  computer_call: 'computer_call_output',
  local_shell_call: 'local_shell_call_output',
  shell_call: 'shell_call_output',
  apply_patch_call: 'apply_patch_call_output',
}

/**
 * What the Responses API refuses in `input` (with `store: false`): an item type it does not know,
 * a message without a known role or content, a `function_call_output` whose `call_id` no earlier
 * `function_call` has, a `function_call` with no output after it ("No tool output found"), the
 * same for `custom_tool_call` and the calls of the API's client-run tools (computer use, shell,
 * apply_patch) and their outputs, a
 * reasoning item without `encrypted_content` (nothing is stored to look it up by id) or with
 * nothing after it, a hosted tool's record without its `id`, and a compaction item without
 * `encrypted_content` or with a field its input form does not have (`type`, `id`,
 * `encrypted_content`).
 */
export function openaiRequestProblems(body: unknown): string[] {
  if (!isJson(body) || !Array.isArray(body['input'])) return ['the body has no input list']
  const input = objects(body['input'])
  const problems: string[] = []
  const calls = new Set<unknown>()
  const answered = new Set<unknown>(
    input.flatMap((item) =>
      Object.values(OUTPUT_OF).includes(String(item['type']))
        ? [`${String(item['type'])} ${String(item['call_id'])}`]
        : [],
    ),
  )
  input.forEach((item, i) => {
    const at = `input[${i}]`
    const type = item['type'] ?? (item['role'] === undefined ? undefined : 'message')
    if (!INPUT_TYPES.includes(String(type))) problems.push(`${at} has type ${String(type)}`)
    if (type === 'message') {
      if (!['user', 'assistant', 'system', 'developer'].includes(String(item['role'])))
        problems.push(`${at}.role is ${String(item['role'])}`)
      const content = item['content']
      if (!(typeof content === 'string' || (Array.isArray(content) && content.length > 0)))
        problems.push(`${at} has no content`)
    }
    const output = OUTPUT_OF[String(type)]
    if (output !== undefined) {
      if (typeof item['call_id'] !== 'string' || item['call_id'] === '')
        problems.push(`${at} has no call_id`)
      const argument = type === 'function_call' ? 'arguments' : 'input'
      const takes = type === 'function_call' || type === 'custom_tool_call'
      if (takes && typeof item[argument] !== 'string')
        problems.push(`${at}.${argument} is not a string`)
      if (!answered.has(`${output} ${String(item['call_id'])}`))
        problems.push(`${at}: no ${output} for ${String(item['call_id'])}`)
      calls.add(`${output} ${String(item['call_id'])}`)
    }
    if (
      Object.values(OUTPUT_OF).includes(String(type)) &&
      !calls.has(`${String(type)} ${String(item['call_id'])}`)
    )
      problems.push(
        `${at} answers ${String(item['call_id'])}, which no ${String(type).replace('_output', '')} before has`,
      )
    if (HOSTED_RECORDS.includes(String(type)) && typeof item['id'] !== 'string')
      problems.push(`${at} is ${String(type)} without its id`)
    if (type === 'compaction') {
      if (typeof item['encrypted_content'] !== 'string')
        problems.push(`${at} is compaction without encrypted_content`)
      const unknown = Object.keys(item).filter(
        (key) => !['type', 'id', 'encrypted_content'].includes(key),
      )
      if (unknown.length > 0) problems.push(`${at} has unknown parameters ${unknown.join(', ')}`)
    }
    if (type === 'reasoning') {
      if (typeof item['encrypted_content'] !== 'string')
        problems.push(`${at} is reasoning without encrypted_content`)
      if (i === input.length - 1) problems.push(`${at} is reasoning with nothing after it`)
    }
  })
  return problems
}
