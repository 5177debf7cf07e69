import type { CallOptions } from '../../../core/adapter.ts'
import type { Capabilities } from '../../../core/capabilities.ts'
import type { Conversation } from '../../../core/conversation.ts'
import type { Delta, DeltaSource, Finish, StreamContext } from '../../../kit/guard-stream.ts'
import { END, readEventStream, type EventSourceMessage } from '../../../kit/read-event-stream.ts'
import type { Deltas } from '../delta-batch.ts'
import type { GeminiSettings } from '../settings.ts'
import { buildRequest } from './build-request.ts'
import { createEventMapper } from './map-events.ts'
import { createErrorBodyCheck } from './error-body.ts'
import { cutsOpenCalls, finishOf } from './map-finish.ts'
import { sendInteraction } from './send-interaction.ts'

/** What every turn of one adapter shares. */
export type InteractionSetup = {
  provider: string
  model: string
  capabilities: Capabilities
  transport: GeminiSettings
}

/**
 * The producer of one turn on the Interactions API, for `guardStream`: sends the request, reads the
 * SSE body once with `readEventStream` (handed to the guard, which reads its batches of deltas),
 * and ends at `interaction.completed`, so a body that stays open after it still ends the turn. A
 * function call whose step had not stopped is closed when the model ended its turn, and dropped
 * with a warning when the answer was cut off (never yielded, never in the items). The finish record
 * is `finishOf`'s.
 */
export async function* streamInteraction(
  setup: InteractionSetup,
  conversation: Conversation,
  options: CallOptions,
  context: StreamContext,
): AsyncGenerator<Delta | readonly Delta[] | DeltaSource, Finish, undefined> {
  const { provider, model, capabilities } = setup
  const { signal, tag } = context
  const warnings: string[] = []
  const body = buildRequest(model, capabilities, conversation, options, tag, warnings)
  const response = await sendInteraction(setup.transport, body, signal, provider)

  const turnPosition = conversation.turns.length
  const mapper = createEventMapper(provider, (index) => `gemini_${turnPosition}_${index}`)
  // The terminal event's own deltas: the reader stops at it, so they go out after the loop.
  const terminal: { deltas: Deltas } = { deltas: undefined }
  const decode = (message: EventSourceMessage): Deltas | typeof END => {
    if (message.data === '[DONE]') return undefined
    const event: unknown = JSON.parse(message.data)
    const deltas = mapper.map(event, message.event)
    if (!mapper.ended) return deltas
    terminal.deltas = deltas
    return END
  }
  // Handed to the guard whole: it reads the batches itself, with no generator step per read.
  yield readEventStream(response.body, {
    provider,
    decode,
    inspect: createErrorBodyCheck(provider),
    signal,
  })
  if (terminal.deltas !== undefined) yield terminal.deltas

  if (!cutsOpenCalls(mapper.status)) {
    const closed = mapper.closeOpenCalls()
    if (closed !== undefined) yield closed
  } else mapper.dropOpenCalls()
  return finishOf(mapper.summary(), provider, warnings)
}
