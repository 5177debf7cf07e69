/**
 * OpenAI-compatible Chat Completions servers as upstreams: their streamed answers (data-only SSE
 * of `chat.completion.chunk`s ending in `[DONE]`) as DeepSeek, OpenRouter and a server with inline
 * `<think>` tags send them, and the rules Chat Completions sets for `messages`.
 */
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import { isJson, inJson, objects, stringField, type Json, type Wire } from './wire.ts'

function chunk(model: string, delta: Json, finish: string | null = null, extra: Json = {}): string {
  const data = {
    id: 'chatcmpl-contract',
    object: 'chat.completion.chunk',
    created: 1767225600,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  }
  return `data: ${JSON.stringify(data)}\n\n`
}

const DONE = 'data: [DONE]\n\n'

/** Tool-call fragments: id and name first, then the arguments in pieces. */
function toolCall(model: string, id: string, name: string, pieces: string[]): string[] {
  return [
    chunk(model, {
      tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }],
    }),
    ...pieces.map((piece) =>
      chunk(model, { tool_calls: [{ index: 0, function: { arguments: piece } }] }),
    ),
  ]
}

/** The tool call the DeepSeek answer streams. */
export const deepseekToolCall = { name: 'get_weather', input: { city: 'Zürich' } }

/** What the DeepSeek answer streams as thinking and as text. */
export const deepseekStreamed = {
  thinking: 'Zürich braucht ein Werkzeug — get_weather.',
  text: 'Ich schaue nach → Moment ⛅.',
}

/** DeepSeek: `reasoning_content` deltas, content, a tool call, the finish chunk with usage. */
export function deepseekAnswer(model: string): Wire {
  return {
    events: [
      chunk(model, { role: 'assistant', content: null, reasoning_content: '' }),
      chunk(model, { content: null, reasoning_content: 'Zürich braucht ' }),
      chunk(model, { content: null, reasoning_content: 'ein Werkzeug — get_weather.' }),
      chunk(model, { content: 'Ich schaue nach → ' }),
      chunk(model, { content: 'Moment ⛅.' }),
      ...toolCall(model, 'call_ds_contract', 'get_weather', ['{"city":', '"Zürich"}']),
      chunk(model, { content: '', reasoning_content: null }, 'tool_calls', {
        usage: {
          prompt_tokens: 120,
          completion_tokens: 40,
          total_tokens: 160,
          prompt_tokens_details: { cached_tokens: 64 },
          completion_tokens_details: { reasoning_tokens: 25 },
        },
      }),
      DONE,
    ],
    firstDelta: 1,
  }
}

/**
 * Reasoning, then the finish chunk of the output limit (`length`): DeepSeek's way, and
 * OpenRouter's (`reasoning` with its details) when `details` is set.
 */
export function reasoningCutShort(model: string, details = false): Wire {
  const think = (text: string) =>
    details
      ? {
          reasoning: text,
          reasoning_details: [{ type: 'reasoning.text', format: 'unknown', index: 0, text }],
        }
      : { reasoning_content: text }
  return {
    events: [
      chunk(model, { role: 'assistant', content: null, ...think('Lange ') }),
      chunk(model, { content: null, ...think('denken 🧠') }),
      chunk(model, { content: '' }, 'length', {
        usage: { prompt_tokens: 120, completion_tokens: 512, total_tokens: 632 },
      }),
      DONE,
    ],
    firstDelta: 0,
  }
}

/** Inline `<think>` tags the output limit cut inside, before the closing tag. */
export function thinkTagsCutShort(model: string): Wire {
  return {
    events: [
      chunk(model, { role: 'assistant', content: '' }),
      chunk(model, { content: '<think>Lyon: long ' }),
      chunk(model, { content: 'think 🧠' }, 'length'),
      DONE,
    ],
    firstDelta: 1,
  }
}

/** The reasoning a DeepSeek turn keeps for replay: it reaches a request only then. */
export function deepseekMarkers(turn: AssistantTurn): string[] {
  const reasoning = stringField(objects(turn.items?.data)[0] ?? {}, 'reasoning_content')
  return reasoning === undefined || reasoning === '' ? [] : [inJson(reasoning)]
}

/** The tool call the think-tags answer streams. */
export const thinkTagsToolCall = { name: 'get_weather', input: { city: 'Lyon' } }

/** What the think-tags answer streams as thinking and as text. */
export const thinkTagsStreamed = {
  thinking: 'Lyon: look it up first.',
  text: 'Let me check Lyon 🌤️.',
}

/** Inline `<think>` tags cut across chunks, text, a tool call, the finish and a usage chunk. */
export function thinkTagsAnswer(model: string): Wire {
  return {
    events: [
      chunk(model, { role: 'assistant', content: '' }),
      chunk(model, { content: '<th' }),
      chunk(model, { content: 'ink>Lyon: look it up' }),
      chunk(model, { content: ' first.</th' }),
      chunk(model, { content: 'ink>\n\nLet me check Lyon ' }),
      chunk(model, { content: '🌤️.' }),
      // Arguments as a local model writes them, with spaces; they go back exactly so on replay.
      ...toolCall(model, 'call_tt_contract', 'get_weather', ['{"city": ', '"Lyon"}']),
      chunk(model, {}, 'tool_calls'),
      `data: ${JSON.stringify({
        id: 'chatcmpl-contract',
        object: 'chat.completion.chunk',
        created: 1767225600,
        model,
        choices: [],
        usage: { prompt_tokens: 14, completion_tokens: 22, total_tokens: 36 },
      })}\n\n`,
      DONE,
    ],
    firstDelta: 2,
  }
}

/**
 * The tool-call arguments a think-tags turn keeps exactly as streamed: a re-encoded turn
 * serializes its parsed input instead, so these reach a request only when the items are replayed.
 */
export function thinkTagsMarkers(turn: AssistantTurn): string[] {
  const calls = objects(objects(turn.items?.data)[0]?.['tool_calls'])
  return calls.flatMap((call) => {
    const args = isJson(call['function']) ? stringField(call['function'], 'arguments') : undefined
    return args === undefined ? [] : [inJson(args)]
  })
}

/** The tool call the OpenRouter answer streams. */
export const openrouterToolCall = { name: 'get_weather', input: { city: 'Wien' } }

/** What the OpenRouter answer streams as thinking and as text. */
export const openrouterStreamed = { thinking: 'Wien prüfen …', text: 'Ich frage das Wetter ab 🌈.' }

/** OpenRouter: `reasoning` plus signed and encrypted `reasoning_details`, a comment, text, a call. */
export function openrouterAnswer(model: string): Wire {
  const detail = (fields: Json) => ({ format: 'anthropic-claude-v1', index: 0, ...fields })
  return {
    events: [
      chunk(model, {
        role: 'assistant',
        content: '',
        reasoning: 'Wien ',
        reasoning_details: [detail({ type: 'reasoning.text', text: 'Wien ' })],
      }),
      chunk(model, {
        content: '',
        reasoning: 'prüfen …',
        reasoning_details: [detail({ type: 'reasoning.text', text: 'prüfen …' })],
      }),
      chunk(model, {
        content: '',
        reasoning_details: [
          detail({ type: 'reasoning.text', signature: 'T3BlblJvdXRlckNvbnRyYWN0U2ln' }),
        ],
      }),
      chunk(model, {
        content: '',
        reasoning_details: [
          detail({ type: 'reasoning.encrypted', data: 'T3BlblJvdXRlckVuY3J5cHRlZA==', index: 1 }),
        ],
      }),
      ': OPENROUTER PROCESSING\n\n',
      chunk(model, { content: 'Ich frage das ' }),
      chunk(model, { content: 'Wetter ab 🌈.' }),
      ...toolCall(model, 'toolu_or_contract', 'get_weather', ['{"city"', ':"Wien"}']),
      chunk(model, {}, 'tool_calls', {
        usage: {
          prompt_tokens: 30,
          completion_tokens: 50,
          total_tokens: 80,
          completion_tokens_details: { reasoning_tokens: 35 },
        },
      }),
      DONE,
    ],
    firstDelta: 0,
  }
}

/** Text, then a chunk carrying an `error` object: how OpenRouter fails a started stream. */
export function openrouterFailure(model: string): Wire {
  return {
    events: [
      chunk(model, { role: 'assistant', content: 'Ein Anfang … ' }),
      chunk(model, { content: '' }, 'error', {
        error: { code: 502, message: 'Upstream provider returned an error' },
      }),
      DONE,
    ],
    firstDelta: 0,
  }
}

/** The signed and encrypted reasoning details of a turn: they reach a request only on replay. */
export function openrouterMarkers(turn: AssistantTurn): string[] {
  const details = objects(objects(turn.items?.data)[0]?.['reasoning_details'])
  return details.flatMap((detail) =>
    ['signature', 'data'].flatMap((key) => {
      const value = stringField(detail, key)
      return value === undefined ? [] : [value]
    }),
  )
}

/**
 * What Chat Completions refuses in `messages`: an unknown role, an assistant message with neither
 * content nor tool calls, a malformed tool call, a `tool` message whose `tool_call_id` is not a
 * call of the assistant message before it (only tool messages between), and an assistant message
 * whose calls are not all answered before the next message. With `reasoningOnToolCalls` (DeepSeek
 * in thinking mode), an assistant message with tool calls must carry `reasoning_content`.
 */
export function chatRequestProblems(body: unknown, reasoningOnToolCalls = false): string[] {
  if (!isJson(body) || !Array.isArray(body['messages'])) return ['the body has no messages list']
  const messages = objects(body['messages'])
  const problems: string[] = []
  let open: { at: string; ids: Set<unknown> } | undefined
  const close = (at: string) => {
    if (open !== undefined && open.ids.size > 0)
      problems.push(`${open.at}: calls ${[...open.ids].join(', ')} unanswered before ${at}`)
    open = undefined
  }
  messages.forEach((message, i) => {
    const at = `messages[${i}]`
    const role = message['role']
    if (!['system', 'developer', 'user', 'assistant', 'tool'].includes(String(role)))
      problems.push(`${at}.role is ${String(role)}`)
    if (role === 'tool') {
      const id = message['tool_call_id']
      if (open === undefined || !open.ids.delete(id))
        problems.push(`${at} answers ${String(id)}, no open tool call of the assistant before`)
      return
    }
    close(at)
    if (role !== 'assistant') return
    const calls = objects(message['tool_calls'])
    const content = message['content']
    if (calls.length === 0 && (content === null || content === undefined || content === ''))
      problems.push(`${at} has neither content nor tool calls`)
    calls.forEach((call, j) => {
      const fn = isJson(call['function']) ? call['function'] : {}
      if (typeof call['id'] !== 'string' || call['type'] !== 'function')
        problems.push(`${at}.tool_calls[${j}] needs an id and type 'function'`)
      if (typeof fn['name'] !== 'string' || typeof fn['arguments'] !== 'string')
        problems.push(`${at}.tool_calls[${j}].function needs a name and string arguments`)
    })
    if (
      reasoningOnToolCalls &&
      calls.length > 0 &&
      typeof message['reasoning_content'] !== 'string'
    )
      problems.push(`${at} has tool calls but no reasoning_content`)
    open = { at, ids: new Set(calls.map((call) => call['id'])) }
  })
  close('the end')
  return problems
}
