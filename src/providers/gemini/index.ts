import { GoogleGenAI } from '@google/genai'
import type { Adapter, CallOptions } from '../../core/adapter.ts'
import type { AssistantTurn, Conversation } from '../../core/conversation.ts'
import { abortedError, ThinkwireError } from '../../core/errors.ts'
import type { Event } from '../../core/events.ts'
import { guardStream } from '../../core/guard-stream.ts'
import { thinkingModeOf, type ReplayTag } from '../../core/replay.ts'
import { findModel } from '../../models.ts'
import { buildConfig } from './build-config.ts'
import { encodeContents } from './encode-conversation.ts'
import { mapFinishReason, mapUsage } from './map-finish.ts'
import { mapGeminiError } from './map-error.ts'
import { withoutNodeTimeouts } from './no-timeout.ts'
import { readChunkBatches } from './read-body.ts'
import { createChunkReader } from './read-chunks.ts'

/** Options of {@link gemini}. */
export type GeminiOptions = {
  /** A Gemini API key. It travels in the `x-goog-api-key` header, never in a URL. */
  apiKey: string
  /** Model id, e.g. `'gemini-3-flash-preview'`. Its row in the model table sets thinking. */
  model: string
  /** @defaultValue `https://generativelanguage.googleapis.com` */
  baseURL?: string | undefined
  /** A `fetch` to send requests with (tests pass one that replays recorded streams). */
  fetch?: typeof globalThis.fetch | undefined
  /** Extra headers on every request. */
  headers?: Record<string, string> | undefined
}

const PROVIDER = 'gemini'

/**
 * An adapter for Google's Gemini API on `@google/genai` (`models.generateContentStream`). Thoughts
 * (`thought: true` parts) stream as `thinking`; the turn's items are the candidate's parts with
 * their `thoughtSignature`s, replayed verbatim to the same model and thinking mode. The SDK does
 * not retry: wrap the adapter in `withRetry` for that.
 *
 * @example
 * ```ts
 * const adapter = gemini({ apiKey, model: 'gemini-3-flash-preview' })
 * for await (const event of adapter.stream({ turns: [{ role: 'user', content: 'Hi' }] })) {
 *   if (event.type === 'text') console.log(event.text)
 * }
 * ```
 */
export function gemini(options: GeminiOptions): Adapter {
  const { model } = options
  const client = new GoogleGenAI({
    apiKey: options.apiKey,
    httpOptions: {
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.baseURL === undefined ? {} : { baseUrl: options.baseURL }),
      ...(options.headers === undefined ? {} : { headers: options.headers }),
    },
  })

  async function* produce(
    conversation: Conversation,
    callOptions: CallOptions,
    signal: AbortSignal,
    touch: () => void,
  ): AsyncGenerator<Event> {
    const thinkingMode = thinkingModeOf(callOptions.thinking)
    const tag: ReplayTag = { provider: PROVIDER, model, thinkingMode }
    const row = findModel(PROVIDER, model)
    const warnings: string[] = []
    const config = buildConfig(row, conversation.system, callOptions, warnings)
    config.abortSignal = signal
    const contents = encodeContents(conversation.turns, tag, {
      placeholderSignature: row?.requiresToolCallSignature === true,
    })

    const turnPosition = conversation.turns.length
    const pending: Event[] = []
    let text = ''
    let thinking = ''
    const reader = createChunkReader({
      onThinking: (delta) => {
        thinking += delta
        pending.push({ type: 'thinking', text: delta })
      },
      onText: (delta) => {
        text += delta
        pending.push({ type: 'text', text: delta })
      },
      onToolCall: (call) => pending.push({ type: 'tool-call', call }),
      makeCallId: (index) => `gemini_${turnPosition}_${index}`,
    })

    // The SDK converts the request, sends it and maps HTTP errors; its generator, which has not
    // read the body yet, is closed unread, and the raw body is parsed by `readChunkBatches` at a
    // fraction of the SDK's cost per chunk. The fetch is passed per request, so concurrent streams
    // on one client each get their own response.
    let response: Response | undefined
    const given = config.httpOptions?.fetch ?? options.fetch
    const send: typeof fetch =
      given ?? ((input, init) => globalThis.fetch(input, withoutNodeTimeouts(init)))
    config.httpOptions = {
      ...config.httpOptions,
      fetch: async (input, init) => (response = await send(input, init)),
    }
    const stream = await client.models.generateContentStream({ model, contents, config })
    await stream.return(undefined)
    if (response === undefined) throw new Error(`${PROVIDER}: the SDK sent no request`)
    for await (const batch of readChunkBatches(response, PROVIDER)) {
      touch()
      for (const chunk of batch) reader.feed(chunk)
      yield* pending.splice(0)
    }
    // The SDK ends quietly when its request is aborted: that is no finished turn.
    if (signal.aborted) throw abortedError(PROVIDER, signal.reason)
    const summary = reader.finish()
    yield* pending.splice(0)

    if (summary.blockReason !== undefined) {
      throw new ThinkwireError({
        kind: 'content-filter',
        message: `${PROVIDER}: the prompt was blocked (${summary.blockReason})`,
        provider: PROVIDER,
      })
    }
    if (summary.finishReason === undefined) {
      throw new ThinkwireError({
        kind: 'network',
        message: `${PROVIDER}: the stream ended without a finish reason`,
        provider: PROVIDER,
      })
    }
    const stopReason = mapFinishReason(summary.finishReason, summary.toolCalls.length > 0)
    if (stopReason === 'refusal' || stopReason === 'other') {
      const categories = summary.blockedCategories.join(', ')
      const detail =
        (categories === '' ? '' : ` (${categories})`) +
        (summary.finishMessage === undefined ? '' : `: ${summary.finishMessage}`)
      warnings.push(`finishReason ${summary.finishReason}${detail}`)
    }
    const turn: AssistantTurn = {
      role: 'assistant',
      text,
      usage: mapUsage(summary.usage),
      stopReason,
      items: { provider: PROVIDER, model, thinkingMode, data: summary.parts },
    }
    if (thinking !== '') turn.thinking = thinking
    if (summary.toolCalls.length > 0) turn.toolCalls = summary.toolCalls
    if (warnings.length > 0) turn.warnings = warnings
    yield { type: 'done', turn }
  }

  return {
    provider: PROVIDER,
    model,
    stream(conversation, callOptions = {}) {
      return guardStream(
        {
          provider: PROVIDER,
          options: callOptions,
          mapError: (error) => mapGeminiError(error, PROVIDER),
        },
        ({ signal, touch }) => produce(conversation, callOptions, signal, touch),
      )
    },
  }
}
