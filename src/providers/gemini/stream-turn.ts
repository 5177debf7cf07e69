import type { GoogleGenAI } from '@google/genai'
import type { CallOptions } from '../../core/adapter.ts'
import type { Conversation } from '../../core/conversation.ts'
import type { Delta, DeltaSource, Finish, StreamContext } from '../../kit/guard-stream.ts'
import { END, readEventStream, type EventSourceMessage } from '../../kit/read-event-stream.ts'
import { buildConfig } from './build-config.ts'
import { encodeContents } from './encode-conversation.ts'
import { createBareErrorCheck, throwIfErrorChunk } from './error-chunk.ts'
import { createChunkMapper, type ChunkDeltas } from './map-chunks.ts'
import { cutsOpenCall, finishOf } from './map-finish.ts'
import type { GeminiModel } from './models.ts'
import { sendRequest } from './send-request.ts'

/** What every turn of one adapter shares. */
export type TurnSetup = {
  provider: string
  client: GoogleGenAI
  model: string
  row: GeminiModel
  /** The caller's fetch, if any. */
  fetch: typeof globalThis.fetch | undefined
}

/**
 * The producer of one Gemini turn, for `guardStream`: sends the request, reads the SSE body once
 * with `readEventStream` (handed to the guard, which reads its batches of deltas), and ends at the chunk that carries
 * the candidate's `finishReason` (or the prompt's `blockReason`), so a body that stays open after
 * it still ends the turn. A function call whose arguments were still streaming when the answer
 * stopped for any reason but `STOP` (the output limit, a filter) is dropped with a warning: never
 * yielded, never in the items. The finish record is `finishOf`'s (a blocked prompt or a safety
 * stop is a `refusal` turn; an unusable tool call fails with `invalid-output`).
 */
export async function* streamTurn(
  setup: TurnSetup,
  conversation: Conversation,
  options: CallOptions,
  context: StreamContext,
): AsyncGenerator<Delta | readonly Delta[] | DeltaSource, Finish, undefined> {
  const { provider, client, model, row } = setup
  const { signal, tag } = context
  const warnings: string[] = []
  const config = buildConfig(row, conversation.system, options, warnings)
  config.abortSignal = signal
  const contents = encodeContents(conversation.turns, tag, {
    placeholderSignature: row.requiresToolCallSignature,
  })
  const response = await sendRequest(client, { model, contents, config }, setup.fetch, provider)
  const { headers } = response

  const turnPosition = conversation.turns.length
  const mapper = createChunkMapper((index) => `gemini_${turnPosition}_${index}`)
  // The terminal chunk's own deltas: the reader stops at it, so they go out after the loop.
  const terminal: { deltas: ChunkDeltas } = { deltas: undefined }
  const decode = (message: EventSourceMessage): ChunkDeltas | typeof END => {
    const chunk: unknown = JSON.parse(message.data)
    throwIfErrorChunk(chunk, provider, headers)
    const deltas = mapper.map(chunk)
    if (!mapper.ended) return deltas
    terminal.deltas = deltas
    return END
  }
  // Handed to the guard whole: it reads the batches itself, with no generator step per read.
  yield readEventStream(response.body, {
    provider,
    decode,
    inspect: createBareErrorCheck(provider, headers),
    signal,
  })
  if (terminal.deltas !== undefined) yield terminal.deltas

  const reason = mapper.summary().finishReason
  if (cutsOpenCall(reason)) {
    const dropped = mapper.drop()
    if (dropped !== undefined)
      warnings.push(
        `tool call ${dropped.name || '(unnamed)'} dropped: the answer stopped (${reason ?? 'no finish reason'}) before its arguments were complete`,
      )
  } else {
    const closed = mapper.flush()
    if (closed !== undefined) yield closed
  }
  return finishOf(mapper.summary(), provider, warnings)
}
