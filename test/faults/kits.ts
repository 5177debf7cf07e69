/**
 * Per-provider fault kits: for each provider, an OK stream in its wire format (at least two events
 * before `done`), its HTTP error bodies, its mid-stream error event, and where its first event
 * ends, so every fault can be built the same way for every provider. No `node:*` import: the
 * Worker fault entry bundles this file for workerd.
 */
import type { Adapter } from '../../src/core/adapter.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { gemini, geminiInteractions } from '../../src/providers/gemini/index.ts'
import { openaiCompatible } from '../../src/providers/openai-compatible/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import type { ReplaySpec } from '../helpers/replay-fetch.ts'

/** What a provider says with an HTTP error, in its own body format. */
export type HttpFault = { status: number; retryAfterSeconds?: number | undefined }

/** Everything the matrix needs to know about one provider's wire format. */
export type FaultKit = {
  name: 'anthropic' | 'openai' | 'gemini' | 'gemini-interactions' | 'openai-compatible'
  /** The `provider` of its adapter. */
  provider: string
  /** The adapter, on a replaying (or faulting) fetch. */
  adapter(fetch: typeof globalThis.fetch): Adapter
  /** The SSE messages of a good answer; the one at `firstEvent` yields the first event. */
  messages: readonly string[]
  firstEvent: number
  /** An HTTP error answer in the provider's format. */
  httpError(fault: HttpFault): ReplaySpec
  /** The provider's error event, sent inside a 200 stream after the first event. */
  errorEvent: string
  /** A data line whose JSON is broken, framed as the provider frames its events. */
  garbage: string
}

/** Keys in each provider's real format, so redaction is exercised as it would be. */
export const KEYS = {
  anthropic: 'sk-ant-api03-faultKit0123456789abcdef',
  openai: 'sk-proj-faultKit0123456789abcdef',
  gemini: 'AIzaSyFaultKit0123456789abcdefghijk',
  interactions: 'AIzaSyFaultKitInteractions0123456789',
  compatible: 'gsk_faultKit0123456789abcdef',
} as const

const json = (value: unknown) => JSON.stringify(value)
const named = (event: string, data: unknown) => `event: ${event}\ndata: ${json(data)}\n\n`
const unnamed = (data: unknown) => `data: ${json(data)}\n\n`

function jsonError(status: number, body: unknown, retryAfterSeconds?: number): ReplaySpec {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds)
  return { status, headers, body: json(body) }
}

const ANTHROPIC_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  404: 'not_found_error',
  408: 'timeout_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'overloaded_error',
  529: 'overloaded_error',
}

const anthropicKit: FaultKit = {
  name: 'anthropic',
  provider: 'anthropic',
  adapter: (fetch) => anthropic({ apiKey: KEYS.anthropic, model: 'claude-sonnet-5', fetch }),
  messages: [
    named('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_fault',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-5',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 1 },
      },
    }),
    named('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
    named('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: 'Bonjour' },
    }),
    named('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: ', le monde 🌍' },
    }),
    named('content_block_stop', { type: 'content_block_stop', index: 0 }),
    named('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 6 },
    }),
    named('message_stop', { type: 'message_stop' }),
  ],
  firstEvent: 2,
  httpError: ({ status, retryAfterSeconds }) =>
    jsonError(
      status,
      {
        type: 'error',
        error: { type: ANTHROPIC_TYPES[status] ?? 'api_error', message: `fault ${status}` },
        request_id: 'req_fault',
      },
      retryAfterSeconds,
    ),
  errorEvent: named('error', {
    type: 'error',
    error: { type: 'overloaded_error', message: 'Overloaded' },
  }),
  garbage: 'event: content_block_delta\ndata: {"type":"content_block_delta",,garbage}\n\n',
}

const OPENAI_CODES: Readonly<Record<number, [type: string, code: string | null, message: string]>> =
  {
    400: ['invalid_request_error', null, "Invalid value for 'input'."],
    // What a request without a key gets: no `code`, and a `type` that is only a category.
    401: ['invalid_request_error', null, "You didn't provide an API key."],
    404: ['invalid_request_error', 'model_not_found', 'The model does not exist.'],
    408: ['server_error', null, 'Request timed out.'],
    413: ['invalid_request_error', null, 'Request too large.'],
    429: ['requests', 'rate_limit_exceeded', 'Rate limit reached for requests.'],
    500: ['server_error', null, 'The server had an error while processing your request.'],
    503: ['server_error', null, 'Service Unavailable.'],
    529: ['server_error', null, 'Service Unavailable.'],
  }

const response = (status: string, output: unknown[], usage: unknown) => ({
  id: 'resp_fault',
  object: 'response',
  created_at: 1767225600,
  status,
  model: 'gpt-5.4',
  output,
  store: false,
  usage,
})
const openaiMessage = {
  id: 'msg_fault',
  type: 'message',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', annotations: [], text: 'Bonjour, le monde 🌍' }],
}

const openaiKit: FaultKit = {
  name: 'openai',
  provider: 'openai',
  adapter: (fetch) => openai({ apiKey: KEYS.openai, model: 'gpt-5.4', fetch }),
  messages: [
    named('response.created', {
      type: 'response.created',
      response: response('in_progress', [], null),
      sequence_number: 0,
    }),
    named('response.output_item.added', {
      type: 'response.output_item.added',
      output_index: 0,
      item: {
        id: 'msg_fault',
        type: 'message',
        status: 'in_progress',
        content: [],
        role: 'assistant',
      },
      sequence_number: 1,
    }),
    named('response.output_text.delta', {
      type: 'response.output_text.delta',
      item_id: 'msg_fault',
      output_index: 0,
      content_index: 0,
      delta: 'Bonjour',
      sequence_number: 2,
    }),
    named('response.output_text.delta', {
      type: 'response.output_text.delta',
      item_id: 'msg_fault',
      output_index: 0,
      content_index: 0,
      delta: ', le monde 🌍',
      sequence_number: 3,
    }),
    named('response.output_item.done', {
      type: 'response.output_item.done',
      output_index: 0,
      item: openaiMessage,
      sequence_number: 4,
    }),
    named('response.completed', {
      type: 'response.completed',
      response: response('completed', [openaiMessage], {
        input_tokens: 12,
        output_tokens: 6,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 18,
      }),
      sequence_number: 5,
    }),
  ],
  firstEvent: 2,
  httpError: ({ status, retryAfterSeconds }) => {
    const [type, code, message] = OPENAI_CODES[status] ?? ['server_error', null, 'Error.']
    return jsonError(status, { error: { message, type, param: null, code } }, retryAfterSeconds)
  },
  errorEvent: named('error', {
    type: 'error',
    code: 'server_error',
    message: 'The server had an error while processing your request.',
    param: null,
    sequence_number: 3,
  }),
  garbage:
    'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",garbage\n\n',
}

const GEMINI_STATUSES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  404: 'NOT_FOUND',
  408: 'DEADLINE_EXCEEDED',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  529: 'UNAVAILABLE',
}

const geminiChunk = (text: string, finish?: string) => ({
  candidates: [
    {
      content: { role: 'model', parts: [{ text }] },
      index: 0,
      ...(finish === undefined ? {} : { finishReason: finish }),
    },
  ],
  usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 6, totalTokenCount: 18 },
  modelVersion: 'gemini-3-flash-preview',
  responseId: 'resp-fault',
})

const geminiKit: FaultKit = {
  name: 'gemini',
  provider: 'gemini',
  adapter: (fetch) =>
    gemini({
      apiKey: KEYS.gemini,
      model: 'gemini-3-flash-preview',
      baseURL: 'https://gemini.test',
      fetch,
    }),
  messages: [unnamed(geminiChunk('Bonjour')), unnamed(geminiChunk(', le monde 🌍', 'STOP'))],
  firstEvent: 0,
  httpError: ({ status, retryAfterSeconds }) => {
    // Gemini says when to come back in the body (google.rpc.RetryInfo); a proxy in front of it
    // may add the HTTP header too.
    const details =
      retryAfterSeconds === undefined
        ? []
        : [
            {
              '@type': 'type.googleapis.com/google.rpc.RetryInfo',
              retryDelay: `${retryAfterSeconds}s`,
            },
          ]
    const grpc = GEMINI_STATUSES[status] ?? 'UNKNOWN'
    return jsonError(
      status,
      { error: { code: status, message: `fault ${status}`, status: grpc, details } },
      retryAfterSeconds,
    )
  },
  errorEvent: unnamed({
    error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' },
  }),
  garbage: 'data: {"candidates":[{"content":garbage\n\n',
}

/** The Interactions API's error codes, by HTTP status. */
const INTERACTIONS_CODES: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'authentication',
  404: 'model_not_found',
  408: 'deadline_exceeded',
  413: 'invalid_request',
  429: 'rate_limit_exceeded',
  500: 'api_error',
  503: 'unavailable',
  529: 'unavailable',
}

const interactionsKit: FaultKit = {
  name: 'gemini-interactions',
  provider: 'gemini-interactions',
  adapter: (fetch) =>
    geminiInteractions({
      apiKey: KEYS.interactions,
      model: 'gemini-3-flash-preview',
      baseURL: 'https://interactions.test',
      fetch,
    }),
  messages: [
    named('interaction.created', {
      event_type: 'interaction.created',
      interaction: { id: '', status: 'in_progress', model: 'gemini-3-flash-preview' },
    }),
    named('step.start', {
      event_type: 'step.start',
      index: 0,
      step: { type: 'model_output', content: [{ type: 'text', text: 'Bonjour' }] },
    }),
    named('step.delta', {
      event_type: 'step.delta',
      index: 0,
      delta: { type: 'text', text: ', le monde 🌍' },
    }),
    named('step.stop', { event_type: 'step.stop', index: 0 }),
    named('interaction.completed', {
      event_type: 'interaction.completed',
      interaction: {
        id: '',
        status: 'completed',
        usage: { total_input_tokens: 12, total_output_tokens: 6, total_thought_tokens: 0 },
      },
    }),
  ],
  firstEvent: 1,
  httpError: ({ status, retryAfterSeconds }) =>
    jsonError(
      status,
      { error: { code: INTERACTIONS_CODES[status] ?? 'api_error', message: `fault ${status}` } },
      retryAfterSeconds,
    ),
  errorEvent: named('error', {
    event_type: 'error',
    error: { code: 'unavailable', message: 'The model is overloaded.' },
  }),
  garbage: 'event: step.delta\ndata: {"event_type":"step.delta","delta":garbage\n\n',
}

const compatibleChunk = (delta: unknown, finish: string | null, usage: unknown = null) => ({
  id: 'chatcmpl-fault',
  object: 'chat.completion.chunk',
  created: 1767225600,
  model: 'llama-3.3-70b',
  choices: [{ index: 0, delta, finish_reason: finish }],
  usage,
})

const compatibleKit: FaultKit = {
  name: 'openai-compatible',
  provider: 'compat',
  adapter: (fetch) =>
    openaiCompatible({
      provider: 'compat',
      baseURL: 'https://llm.test/v1',
      model: 'llama-3.3-70b',
      apiKey: KEYS.compatible,
      fetch,
    }),
  messages: [
    unnamed(compatibleChunk({ role: 'assistant', content: 'Bonjour' }, null)),
    unnamed(compatibleChunk({ content: ', le monde 🌍' }, null)),
    unnamed(compatibleChunk({}, 'stop')),
    unnamed({
      ...compatibleChunk({}, null, { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 }),
      choices: [],
    }),
    'data: [DONE]\n\n',
  ],
  firstEvent: 0,
  httpError: ({ status, retryAfterSeconds }) => {
    const [type, code, message] = OPENAI_CODES[status] ?? ['server_error', null, 'Error.']
    return jsonError(status, { error: { message, type, param: null, code } }, retryAfterSeconds)
  },
  errorEvent: unnamed({
    ...compatibleChunk({ content: '' }, 'error'),
    error: { code: 502, message: 'Upstream provider returned an error' },
  }),
  garbage: 'data: {"id":"chatcmpl-fault","choices":[{garbage\n\n',
}

/** Every provider kit, in matrix order. */
export const KITS: readonly FaultKit[] = [
  anthropicKit,
  openaiKit,
  geminiKit,
  interactionsKit,
  compatibleKit,
]

/** The whole good answer. */
export function okBody(kit: FaultKit): string {
  return kit.messages.join('')
}

/** The bytes up to and including the message that yields the first event. */
export function firstEventPrefix(kit: FaultKit): string {
  return kit.messages.slice(0, kit.firstEvent + 1).join('')
}

/** The bytes after the first event's message. */
export function afterFirstEvent(kit: FaultKit): string {
  return kit.messages.slice(kit.firstEvent + 1).join('')
}

/** Byte length of a string in UTF-8. */
export function byteLength(text: string): number {
  return new TextEncoder().encode(text).length
}
