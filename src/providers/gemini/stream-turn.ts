import type { GoogleGenAI } from '@google/genai'
import type { CallOptions } from '../../core/adapter.ts'
import type { Conversation } from '../../core/conversation.ts'
import type { Delta, DeltaSource, Finish, StreamContext } from '../../kit/guard-stream.ts'
import { END, readEventStream, type EventSourceMessage } from '../../kit/read-event-stream.ts'
import { buildConfig } from './build-config.ts'
import { encodeContents } from './encode-conversation.ts'
import { createBareErrorCheck, throwIfErrorChunk } from './error-chunk.ts'
import type { Deltas } from './delta-batch.ts'
import { createChunkMapper } from './map-chunks.ts'
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

/** Chunks read past the finish reason, at most, for usage that did not come with it. */
const MAX_CHUNKS_PAST_END = 3
/** How long, at most, usage that did not come with the finish reason is waited for. */
const USAGE_WAIT_MS = 1000

/**
 * The producer of one Gemini turn, for `guardStream`: sends the request, reads the SSE body once
 * with `readEventStream` (handed to the guard, which reads its batches of deltas), and ends at the
 * chunk that carries the candidate's `finishReason` (or the prompt's `blockReason`) when its
 * `usageMetadata` came with it, so a body that stays open after it still ends the turn. Gemini
 * may send the usage in a chunk of its own after that one: then the body is read on for it, for
 * at most {@link MAX_CHUNKS_PAST_END} chunks and {@link USAGE_WAIT_MS} ms, and a failure meanwhile
 * ends the reading, not the complete turn. A function call whose arguments were still streaming
 * when the answer stopped for any reason but `STOP` (the output limit, a filter) is dropped with a
 * warning: never yielded, never in the items. The finish record is `finishOf`'s (a blocked prompt
 * or a safety stop is a `refusal` turn; an unusable tool call fails with `invalid-output`).
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
  // The deltas of the chunk that ended the turn, and of any read after it for usage: held back
  // and handed out once reading is over. The reader stops at `END` without handing out that
  // chunk's item, and takes an event the body ended inside for cut off unless it is `END`, which
  // the chunk that ended the turn may be when usage is still to come.
  const held: Delta[] = []
  let pastEnd = 0
  const decode = (message: EventSourceMessage): Deltas | typeof END => {
    const chunk: unknown = JSON.parse(message.data)
    throwIfErrorChunk(chunk, provider, headers)
    const wasEnded = mapper.ended
    const deltas = mapper.map(chunk)
    if (!mapper.ended) return deltas
    if (Array.isArray(deltas)) held.push(...deltas)
    else if (deltas !== undefined) held.push(deltas)
    if (wasEnded) pastEnd++
    return mapper.usageFinal || pastEnd >= MAX_CHUNKS_PAST_END ? END : undefined
  }
  const batches = readEventStream(response.body, {
    provider,
    decode,
    inspect: createBareErrorCheck(provider, headers),
    signal,
  })
  // Handed to the guard whole: it reads the batches itself, with no generator step per read.
  yield untilUsage(batches, () => mapper.ended && !mapper.usageFinal)
  if (held.length > 0) yield held

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

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined }

/**
 * `batches` as the guard reads them. While `waiting` (the answer ended, its usage has not come),
 * a read that fails ends the batches instead (the answer is complete: a late error or a cut does
 * not undo it), and so does {@link USAGE_WAIT_MS} without the usage, which also releases the body.
 */
function untilUsage(batches: DeltaSource, waiting: () => boolean): DeltaSource {
  let deadline: Promise<IteratorReturnResult<undefined>> | undefined
  // Asked after each read: a read can end the answer and fail in the same network chunk.
  const ifComplete = (error: unknown) => {
    if (waiting()) return DONE
    throw error
  }
  return {
    next() {
      const read = batches.next().catch(ifComplete)
      if (!waiting()) return read
      // A timeout signal does not keep Node's event loop alive.
      deadline ??= new Promise((resolve) =>
        AbortSignal.timeout(USAGE_WAIT_MS).addEventListener('abort', () => {
          void batches.return?.()
          resolve(DONE)
        }),
      )
      return Promise.race([read, deadline])
    },
    return: () => batches.return?.() ?? Promise.resolve(DONE),
  }
}
