import OpenAI from 'openai'
import type { Adapter, CallOptions } from '../../core/adapter.ts'
import type { Conversation } from '../../core/conversation.ts'
import { ThinkwireError } from '../../core/errors.ts'
import type { Event } from '../../core/events.ts'
import { guardStream, type StreamContext } from '../../core/guard-stream.ts'
import { thinkingModeOf, type ReplayTag } from '../../core/replay.ts'
import type { ModelInfo } from '../../models.ts'
import { buildRequest } from './build-request.ts'
import { isKnownOpenaiModel, openaiModelInfo } from './capabilities.ts'
import { finishTurn } from './finish-turn.ts'
import { mapOpenaiError } from './map-error.ts'
import { createStreamMapper } from './map-stream.ts'
import { readEventBatches } from './read-events.ts'

/** Options of {@link openai}. */
export type OpenAIOptions = {
  /** OpenAI API key. */
  apiKey: string
  /** Model id, e.g. `'gpt-5.4'`. */
  model: string
  /** @defaultValue `https://api.openai.com/v1` */
  baseURL?: string | undefined
  /** The `fetch` the SDK uses (tests pass one that replays recorded streams). @defaultValue `globalThis.fetch` */
  fetch?: typeof globalThis.fetch | undefined
  /** Sent as `OpenAI-Organization`. */
  organization?: string | undefined
  /** Sent as `OpenAI-Project`. */
  project?: string | undefined
  /** Allow use from a browser page, where the key is visible to the page's users. @defaultValue false */
  dangerouslyAllowBrowser?: boolean | undefined
}

const PROVIDER = 'openai'

/**
 * An adapter for OpenAI's Responses API (`openai`, streamed `responses.create()`), stateless: `store: false`
 * with the whole conversation inline and encrypted reasoning included. Each turn's `output` items
 * come back as `items` and are replayed verbatim to the same model and thinking mode. SDK
 * retries are off: use `withRetry`.
 *
 * @example
 * ```ts
 * const adapter = openai({ apiKey: env.OPENAI_API_KEY, model: 'gpt-5.4' })
 * for await (const event of adapter.stream(conversation, { thinking: 'medium' })) {
 *   if (event.type === 'thinking') showThinking(event.text)
 * }
 * ```
 */
export function openai(options: OpenAIOptions): Adapter {
  const client = createClient(options)
  const model = options.model
  const info = openaiModelInfo(model)
  const known = isKnownOpenaiModel(model)
  return {
    provider: PROVIDER,
    model,
    stream(conversation, callOptions = {}) {
      return guardStream(
        { provider: PROVIDER, options: callOptions, mapError: mapOpenaiError },
        (context) => produce(client, info, known, model, conversation, callOptions, context),
      )
    },
  }
}

function createClient(options: OpenAIOptions): OpenAI {
  try {
    return new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      fetch: options.fetch,
      // null keeps the SDK from reading OPENAI_ORG_ID / OPENAI_PROJECT_ID behind the caller's back.
      organization: options.organization ?? null,
      project: options.project ?? null,
      dangerouslyAllowBrowser: options.dangerouslyAllowBrowser,
      // Retries belong to `withRetry`, which knows whether an event was already yielded.
      maxRetries: 0,
    })
  } catch (error) {
    throw new ThinkwireError({
      kind: 'invalid-request',
      message: `openai: ${error instanceof Error ? error.message : String(error)}`,
      provider: PROVIDER,
      cause: error,
    })
  }
}

async function* produce(
  client: OpenAI,
  info: ModelInfo,
  known: boolean,
  model: string,
  conversation: Conversation,
  options: CallOptions,
  { signal, touch }: StreamContext,
): AsyncGenerator<Event> {
  const tag: ReplayTag = {
    provider: PROVIDER,
    model,
    thinkingMode: thinkingModeOf(options.thinking),
  }
  const request = buildRequest(info, known, conversation, options, tag)
  // `responses.create({ stream: true })` rather than the `responses.stream()` helper: the helper's
  // accumulator throws on any event type it does not know (new hosted-tool events arrive all the
  // time) and on gaps in `output_index`, and the adapter needs none of its accumulation: items come
  // whole from the stream's own `output_item.done` and terminal events. The SDK sends the request
  // and maps HTTP errors; the body is read by `readEventBatches`, at a fraction of the SDK's cost.
  const response = await client.responses
    .create({ ...request.body, stream: true }, { signal })
    .asResponse()
  const mapper = createStreamMapper()
  const map = mapper.map
  for await (const batch of readEventBatches(response)) {
    touch()
    for (const raw of batch) {
      const event = map(raw)
      if (event !== undefined) yield event
    }
  }
  const terminal = mapper.totals.terminal
  if (terminal === undefined) {
    throw new ThinkwireError({
      kind: 'network',
      message: 'openai: the stream ended before the response completed',
      provider: PROVIDER,
    })
  }
  yield { type: 'done', turn: finishTurn(terminal, mapper.totals, tag, request.warnings) }
}
