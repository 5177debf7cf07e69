import type Anthropic from '@anthropic-ai/sdk'
import { APIError } from '@anthropic-ai/sdk'
import type { CallOptions } from '../../core/adapter.ts'
import type { Conversation } from '../../core/conversation.ts'
import type { Delta, Producer } from '../../kit/guard-stream.ts'
import { isRecord } from '../../kit/json.ts'
import { readEventStream } from '../../kit/read-event-stream.ts'
import { buildRequest, type BuiltRequest } from './build-request.ts'
import { mapFinish } from './map-finish.ts'
import { createStreamMapper } from './map-stream.ts'
import type { ModelEntry } from './models.ts'

/**
 * The producer of one Messages call, for `guardStream`: the SDK builds, authenticates and sends
 * the request (and turns an HTTP error into its `APIError`); the SSE body is then read once, each
 * event mapped synchronously, up to `message_stop`. A 400 about stale thinking signatures, before
 * anything was read, is asked once more without the replayed thinking.
 */
export function streamMessage(
  client: Anthropic,
  model: ModelEntry,
  conversation: Conversation,
  options: CallOptions,
): Producer {
  return async function* ({ signal, tag }) {
    let request = buildRequest(model, conversation, options, tag)
    let response: Response
    try {
      response = await send(client, request, signal)
    } catch (error) {
      if (!request.replayedThinking || !isStaleThinking(error)) throw error
      // Signatures are bound to the system prompt, the tools and the history before them; once
      // one of those changed the API refuses the old blocks. Nothing was read yet: ask once more
      // without them.
      request = buildRequest(model, conversation, options, tag, true)
      request.warnings.push(
        'earlier thinking dropped: it was bound to a different system prompt, tools or history',
      )
      response = await send(client, request, signal)
    }

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
    return message === undefined ? undefined : mapFinish(message, request.warnings)
  }
}

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
