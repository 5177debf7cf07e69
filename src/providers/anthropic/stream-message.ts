import type Anthropic from '@anthropic-ai/sdk'
import { APIError } from '@anthropic-ai/sdk'
import type { CallOptions } from '../../core/adapter.ts'
import type { AssistantTurn, Conversation } from '../../core/conversation.ts'
import type { Delta, Producer } from '../../kit/guard-stream.ts'
import { isRecord, type JsonRecord } from '../../kit/json.ts'
import { readEventStream } from '../../kit/read-event-stream.ts'
import { buildRequest, type BuiltRequest } from './build-request.ts'
import { mapFinish } from './map-finish.ts'
import { createStreamMapper, type StreamedMessage } from './map-stream.ts'
import type { ModelEntry } from './models.ts'

/** What every call of one adapter shares: the SDK client, the model, how often to continue. */
export type MessageSetup = {
  client: Anthropic
  model: ModelEntry
  /** How many times a paused turn is continued (`AnthropicSettings.pauseContinuations`). */
  continuations: number
}

/**
 * The producer of one turn, for `guardStream`: the SDK builds, authenticates and sends the request
 * (and turns an HTTP error into its `APIError`); the SSE body is then read once, each event mapped
 * synchronously, up to `message_stop`. A 400 about stale thinking signatures, before anything was
 * read, is asked once more without the replayed thinking. A turn the API paused (`pause_turn`: a
 * server tool ran long) is continued, up to `continuations` times: the turn so far goes back last,
 * as it is, and the next message's deltas follow in the same stream; the `done` turn is the whole
 * turn (every message's blocks, their usage added up).
 */
export function streamMessage(
  setup: MessageSetup,
  conversation: Conversation,
  options: CallOptions,
): Producer {
  const { client, model, continuations } = setup
  return async function* ({ signal, tag }) {
    let stripThinking = false
    let request = buildRequest(model, conversation, options, tag)
    let response: Response
    try {
      response = await send(client, request, signal)
    } catch (error) {
      if (!request.replayedThinking || !isStaleThinking(error)) throw error
      // Signatures are bound to the system prompt, the tools and the history before them; once
      // one of those changed the API refuses the old blocks. Nothing was read yet: ask once more
      // without them.
      stripThinking = true
      request = buildRequest(model, conversation, options, tag, stripThinking)
      request.warnings.push(
        'earlier thinking dropped: it was bound to a different system prompt, tools or history',
      )
      response = await send(client, request, signal)
    }
    const warnings = request.warnings
    /** The turn so far: every message of it, joined. */
    let turn: StreamedMessage | undefined
    for (let paused = 0; ; paused++) {
      const mapper = createStreamMapper()
      const { headers } = response
      // Handed to the guard whole: it reads the batches itself, with no generator step per read.
      yield readEventStream<Delta>(response.body, {
        provider: 'anthropic',
        signal,
        // As the SDK reads its stream: `ping` and nameless events are skipped, an `error` event
        // fails the stream with the `APIError` the SDK makes of it, `message_stop` ends it.
        decode({ event, data }) {
          if (event === 'ping' || event === undefined) return undefined
          if (event === 'error') throw streamError(data, headers)
          if (data === '') return undefined
          return mapper.map(JSON.parse(data))
        },
      })
      const message = mapper.message()
      // Cut off before `message_stop`: returning nothing makes the guard fail the stream.
      if (message === undefined) return undefined
      turn = turn === undefined ? message : joined(turn, message)
      if (message.stopReason !== 'pause_turn' || paused >= continuations) {
        return mapFinish(turn, warnings)
      }
      // Paused: the API goes on with the turn when it is sent back last, with its container.
      const sofar = mapFinish(turn, [])
      const last: AssistantTurn = {
        role: 'assistant',
        text: '',
        usage: sofar.usage,
        stopReason: sofar.stopReason,
        stopDetails: sofar.stopDetails,
        items: { ...tag, data: Array.isArray(sofar.items) ? sofar.items : [] },
      }
      const turns = [...conversation.turns, last]
      request = buildRequest(model, { ...conversation, turns }, options, tag, stripThinking)
      for (const warning of request.warnings)
        if (!warnings.includes(warning)) warnings.push(warning)
      response = await send(client, request, signal)
    }
  }
}

/** A turn's message and the next one, which continues it after a pause, as one message. */
function joined(turn: StreamedMessage, next: StreamedMessage): StreamedMessage {
  return {
    content: [...turn.content, ...next.content],
    usage: addedUsage(turn.usage, next.usage),
    stopReason: next.stopReason,
    stopDetails: next.stopDetails,
    container: isRecord(next.container) ? next.container : turn.container,
    cut: [...turn.cut, ...next.cut.map((index) => index + turn.content.length)],
  }
}

/** The counts of two messages' usage added up, as the API would report one message's. */
function addedUsage(first: JsonRecord, next: JsonRecord): JsonRecord {
  const sum: JsonRecord = { ...next }
  for (const key of USAGE_COUNTS) {
    if (typeof first[key] === 'number' || typeof next[key] === 'number') {
      sum[key] = numberOf(first[key]) + numberOf(next[key])
    }
  }
  const thinking = [first, next].map((usage) => {
    const details = usage['output_tokens_details']
    return isRecord(details) ? details['thinking_tokens'] : undefined
  })
  if (thinking.some((count) => typeof count === 'number')) {
    const details = isRecord(next['output_tokens_details']) ? next['output_tokens_details'] : {}
    sum['output_tokens_details'] = {
      ...details,
      thinking_tokens: numberOf(thinking[0]) + numberOf(thinking[1]),
    }
  }
  return sum
}

const USAGE_COUNTS = [
  'input_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'output_tokens',
] as const

const numberOf = (value: unknown): number => (typeof value === 'number' ? value : 0)

function send(client: Anthropic, request: BuiltRequest, signal: AbortSignal): Promise<Response> {
  return client.messages.create({ ...request.body, stream: true }, { signal }).asResponse()
}

/** The error the SDK throws for an `error` event: an `APIError` without status, typed by the body. */
function streamError(data: string, headers: Headers): APIError {
  let body: unknown = data
  try {
    body = JSON.parse(data)
  } catch {
    // not JSON: the SDK keeps the text
  }
  const error = isRecord(body) ? body['error'] : undefined
  const type = isRecord(error) && typeof error['type'] === 'string' ? error['type'] : undefined
  return new APIError(undefined, body as object, undefined, headers, type as APIError['type'])
}

function isStaleThinking(error: unknown): boolean {
  return (
    error instanceof APIError &&
    error.status === 400 &&
    /bound to a different conversation|invalid `?signature`?/i.test(error.message)
  )
}
