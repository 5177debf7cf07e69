import type OpenAI from 'openai'
import { APIError } from 'openai'
import type { CallOptions } from '../../core/adapter.ts'
import type { Conversation } from '../../core/conversation.ts'
import type { Delta, Finish, Producer } from '../../kit/guard-stream.ts'
import { isRecord } from '../../kit/json.ts'
import { END, readEventStream, type EventSourceMessage } from '../../kit/read-event-stream.ts'
import { thinkingModeOf, type ReplayTag } from '../../kit/replay.ts'
import { assistantMessage } from './encode-messages.ts'
import { buildRequest } from './build-request.ts'
import { createChunkMapper } from './map-chunks.ts'
import { mapFinishReason, mapStopDetails, mapUsage } from './map-finish.ts'
import type { CompatibleModelInfo } from './models.ts'
import { turnCost } from './turn-cost.ts'

/** What one completion call reads with. */
export type CompletionSetup = {
  client: OpenAI
  provider: string
  info: CompatibleModelInfo
  /** The bound on one SSE event, for `readEventStream`. */
  maxEventChars?: number | undefined
  /** The clock that says when the request was sent, for off-peak prices. @defaultValue `Date.now` */
  now?: (() => number) | undefined
}

/**
 * The producer of one Chat Completions call, for `guardStream`: the SDK builds, authenticates and
 * sends the request (and turns an HTTP error into its `APIError`); the SSE body is then read once
 * by the guard and each chunk mapped synchronously as it is decoded, up to `[DONE]`, or up to the chunk after which nothing of
 * the turn is left (finish reason and usage both came), since some servers never send `[DONE]` or
 * keep the body open after it.
 */
export function streamCompletion(
  setup: CompletionSetup,
  conversation: Conversation,
  options: CallOptions,
): Producer {
  const { client, provider, info } = setup
  return async function* (context) {
    const { signal } = context
    const { tag, options: callOptions } = callAs(info, options, context.tag)
    const { params, warnings } = buildRequest(info, conversation, callOptions, tag)
    // Priced at the hour the request was sent, however long the answer streams.
    const sentAt = (setup.now ?? Date.now)()
    const response = await client.chat.completions.create(params, { signal }).asResponse()
    const turnPosition = conversation.turns.length
    const mapper = createChunkMapper({
      thinkTags: info.reasoning.thinkTags ?? 'tags',
      makeCallId: (position) => `call_${turnPosition}_${position}`,
      warnings,
    })
    // Each chunk is mapped as it is decoded, and the guard reads the batches itself. After the
    // chunk that leaves nothing of the turn to read, reading stops and the body is cancelled: a
    // server that keeps it open cannot hang the turn.
    let complete = false
    const decode = chunkDecoder(response.headers)
    const batches = readEventStream<Delta | Delta[]>(response.body, {
      provider,
      signal,
      maxEventChars: setup.maxEventChars,
      decode(message) {
        if (complete) return undefined
        const chunk = decode(message)
        if (chunk === END || chunk === undefined) return chunk
        const deltas: Delta[] = []
        complete = mapper.feed(chunk, deltas)
        return deltas.length === 1 ? deltas[0] : deltas.length === 0 ? undefined : deltas
      },
    })
    yield {
      next: () => (complete ? batches.return() : batches.next()),
      return: () => batches.return(),
    }
    const rest: Delta[] = []
    const summary = mapper.finish(rest)
    // Cut off before the finish reason: returning nothing makes the guard fail the stream.
    if (summary.finishReason === undefined) return undefined
    yield rest
    const { text, calls, finishReason, refusal, sources } = summary
    const stopReason = mapFinishReason(finishReason, calls.length > 0, refusal !== '')
    const usage = mapUsage(summary.usage)
    const cost = turnCost(usage, info, options.cache, sentAt)
    const finish: Finish = {
      usage: cost === undefined ? usage : { ...usage, cost },
      stopReason,
      warnings,
    }
    const stopDetails = mapStopDetails(stopReason, finishReason, refusal)
    if (stopDetails !== undefined) finish.stopDetails = stopDetails
    if (sources.length > 0) finish.sources = sources
    // A turn with no answer and no call (cut off, or filtered, before either) has nothing a
    // server would take back: without items it is left out of later requests.
    if (text !== '' || calls.length > 0) {
      const data = [assistantMessage({ text, calls }, summary, info.reasoning)]
      // An alias's turn carries the tag of the call it made, not of the name it was asked by.
      finish.items = info.aliasOf === undefined ? data : { ...tag, data }
    }
    return finish
  }
}

/**
 * The call as the server takes it. For an alias, the model it stands for, with the alias's
 * thinking unless the call sets its own; the tag is that call's, so its turns replay to the
 * model itself and back. Any other model's call is the caller's, under the guard's tag.
 */
function callAs(
  info: CompatibleModelInfo,
  options: CallOptions,
  tag: ReplayTag,
): { tag: ReplayTag; options: CallOptions } {
  const alias = info.aliasOf
  if (alias === undefined) return { tag, options }
  const thinking = options.thinking ?? alias.thinking
  return {
    tag: { provider: tag.provider, model: alias.model, thinkingMode: thinkingModeOf(thinking) },
    options: { ...options, thinking },
  }
}

/**
 * Decodes one SSE message as the SDK's own stream does: `[DONE]` ends the stream, any other data
 * is a JSON chunk, and a chunk with an `error` (how OpenRouter, vLLM and proxies report a failure
 * after the 200) throws the SDK's `APIError` with the response headers.
 */
function chunkDecoder(headers: Headers): (message: EventSourceMessage) => unknown {
  return ({ data }) => {
    if (data.startsWith('[DONE]')) return END
    if (data === '') return undefined
    const chunk: unknown = JSON.parse(data)
    if (isRecord(chunk) && chunk['error']) throw streamError(chunk['error'], headers)
    return chunk
  }
}

function streamError(error: unknown, headers: Headers): APIError {
  const body = isRecord(error) ? error : { message: String(error) }
  return new APIError(undefined, body, undefined, headers)
}
