import type { ToolCall } from '../../core/events.ts'
import type { Delta } from '../../kit/guard-stream.ts'
import { isRecord, type JsonRecord } from '../../kit/json.ts'
import { createDeltaBatch, type Deltas } from './delta-batch.ts'
import type { GeminiCandidateMetadata } from './map-sources.ts'
import { createPartialArgs, type PartialArgs } from './partial-args.ts'

/** Everything a finished stream said, for the `done` turn. */
export type ChunkSummary = {
  /** The candidate's parts in order, signatures on the parts they came on. */
  parts: JsonRecord[]
  /** How many tool calls the turn made. */
  toolCallCount: number
  /** The last `usageMetadata` (each chunk carries the running total). */
  usage: JsonRecord | undefined
  finishReason: string | undefined
  finishMessage: string | undefined
  /**
   * The candidate's last `continuationToken`: with `finishReason: 'CONTINUATION'`, what resumes
   * the answer (the same request again with this token).
   */
  continuationToken: string | undefined
  /** Safety categories that blocked the answer or the prompt (`safetyRatings[].blocked`). */
  blockedCategories: string[]
  /** Set when the prompt itself was blocked (`promptFeedback.blockReason`). */
  blockReason: string | undefined
  /** `promptFeedback.blockReasonMessage`, when Gemini explains the block (Vertex AI does). */
  blockReasonMessage: string | undefined
  /** Each chunk's `groundingMetadata` and `citationMetadata`, in order, for the turn's sources. */
  metadata: GeminiCandidateMetadata[]
}

/** Maps one stream's chunks; see {@link createChunkMapper}. */
export type ChunkMapper = {
  /** The deltas of one parsed chunk. The mapper owns the chunk from then on (parts are kept). */
  map(chunk: unknown): Deltas
  /** True once a chunk carried the candidate's `finishReason` or the prompt's `blockReason`. */
  readonly ended: boolean
  /**
   * True once `usageMetadata` came with the chunk that ended the turn or after it: the turn's
   * own counts, not a running total from before its end.
   */
  readonly usageFinal: boolean
  /** Closes a call whose arguments were still streaming: its delta, if there was one. */
  flush(): Delta | undefined
  /**
   * Drops a call whose arguments were still streaming (the output ended inside them): it is never
   * emitted, and its part is not kept. Its name, when a call was open.
   */
  drop(): { name: string } | undefined
  /** What the stream said, once it is over. */
  summary(): ChunkSummary
}

type OpenCall = { part: JsonRecord; call: JsonRecord; args: PartialArgs }

/**
 * Maps streamed `GenerateContentResponse` chunks (first candidate only) to deltas. Text parts
 * become `thinking` (`thought: true`) or `text`, function calls become complete tool calls, and
 * every part is kept in order for replay. Plain text parts merge into the one before them only
 * when neither carries a signature, so a signature never moves to another part or gets lost. An
 * empty text part without a signature carries nothing and is dropped. Function calls whose
 * arguments arrive in pieces (`willContinue` + `partialArgs`) are assembled into one complete
 * call, emitted when a piece says no more follow or a part that says something comes after it;
 * one still open when the stream ends is closed (`flush`) or dropped (`drop`) by the caller,
 * which knows why the stream ended. `makeCallId(index)` names the `index`-th call of the turn
 * when Gemini gave it no id. The candidate's grounding and citation records, its continuation
 * token and the prompt's block are read for the summary.
 *
 * Synchronous and allocation-light: per chunk, the deltas and nothing else. Merged text is
 * appended to a string and written to its part once, when the run of text ends.
 */
export function createChunkMapper(makeCallId: (index: number) => string): ChunkMapper {
  const parts: JsonRecord[] = []
  let toolCallCount = 0
  let usage: JsonRecord | undefined
  let usageFinal = false
  let finishReason: string | undefined
  let finishMessage: string | undefined
  let continuationToken: string | undefined
  let blockReason: string | undefined
  let blockReasonMessage: string | undefined
  const blockedCategories: string[] = []
  const metadata: GeminiCandidateMetadata[] = []
  let open: OpenCall | undefined
  // The last part, while it is plain text that the next plain text of its kind joins.
  let run: JsonRecord | undefined
  let runThought = false
  let runText = ''
  // The deltas of the chunk being mapped.
  const { emit, collect } = createDeltaBatch()

  function push(part: JsonRecord): void {
    if (run !== undefined) {
      run['text'] = runText
      run = undefined
    }
    parts.push(part)
  }

  function emitCall(part: JsonRecord, call: JsonRecord, args: unknown): Delta {
    const id = typeof call['id'] === 'string' && call['id'] !== '' ? call['id'] : undefined
    const name = typeof call['name'] === 'string' ? call['name'] : ''
    const toolCall: ToolCall = { id: id ?? makeCallId(toolCallCount), name, input: args ?? {} }
    push(part)
    toolCallCount++
    return { type: 'tool-call', call: toolCall }
  }

  function closeOpenCall(): Delta | undefined {
    if (open === undefined) return undefined
    const { part, call, args } = open
    open = undefined
    const complete: JsonRecord = { ...call, args: args.value() }
    delete complete['willContinue']
    delete complete['partialArgs']
    return emitCall({ ...part, functionCall: complete }, complete, complete['args'])
  }

  function readFunctionCall(part: JsonRecord, call: JsonRecord): void {
    if (open !== undefined && typeof call['name'] !== 'string') {
      open.args.apply(call['partialArgs'])
      if (typeof part['thoughtSignature'] === 'string' && !('thoughtSignature' in open.part))
        open.part = { ...open.part, thoughtSignature: part['thoughtSignature'] }
      if (call['willContinue'] !== true) emit(closeOpenCall()!)
      return
    }
    const closed = closeOpenCall()
    if (closed !== undefined) emit(closed)
    if (call['willContinue'] === true || 'partialArgs' in call) {
      const args = createPartialArgs()
      args.apply(call['partialArgs'])
      open = { part, call, args }
      if (call['willContinue'] !== true) emit(closeOpenCall()!)
      return
    }
    emit(emitCall(part, call, call['args']))
  }

  function readText(part: JsonRecord, text: string, plain: boolean): void {
    const thought = part['thought'] === true
    if (text !== '') emit(thought ? { type: 'thinking', text } : { type: 'text', text })
    if (!plain) return push(part)
    if (run !== undefined && runThought === thought) {
      runText += text
      return
    }
    if (text === '') return
    push(part)
    run = part
    runThought = thought
    runText = text
  }

  function readPart(part: unknown): void {
    if (!isRecord(part)) return
    const call = part['functionCall']
    if (isRecord(call)) return readFunctionCall(part, call)
    const text = part['text']
    const kind = typeof text === 'string' ? textPartKind(part) : 'other'
    // An empty text part says nothing (Gemini ends streams with one): a call still streaming its
    // arguments stays open, so a stop that cuts it off finds it unfinished.
    if (text === '' && kind === 'plain' && open !== undefined) return
    const closed = closeOpenCall()
    if (closed !== undefined) emit(closed)
    if (typeof text === 'string' && kind !== 'other') return readText(part, text, kind === 'plain')
    // Anything else (inline data, code execution, server tool parts): kept for replay, not shown.
    push(part)
  }

  function readBlocked(ratings: unknown): void {
    if (!Array.isArray(ratings)) return
    for (const rating of ratings) {
      if (!isRecord(rating) || rating['blocked'] !== true) continue
      const category = rating['category']
      if (typeof category === 'string' && !blockedCategories.includes(category))
        blockedCategories.push(category)
    }
  }

  function readFeedback(feedback: unknown): void {
    if (!isRecord(feedback)) return
    if (typeof feedback['blockReason'] === 'string') blockReason = feedback['blockReason']
    if (typeof feedback['blockReasonMessage'] === 'string')
      blockReasonMessage = feedback['blockReasonMessage']
    readBlocked(feedback['safetyRatings'])
  }

  function readMetadata(candidate: JsonRecord): void {
    const grounding = candidate['groundingMetadata']
    const citation = candidate['citationMetadata']
    if (!isRecord(grounding) && !isRecord(citation)) return
    metadata.push({
      grounding: isRecord(grounding) ? grounding : undefined,
      citation: isRecord(citation) ? citation : undefined,
    })
  }

  function readCandidate(candidates: unknown): void {
    const candidate = Array.isArray(candidates) ? candidates[0] : undefined
    if (!isRecord(candidate)) return
    const content = candidate['content']
    if (isRecord(content) && Array.isArray(content['parts'])) {
      for (const part of content['parts']) readPart(part)
    }
    if (typeof candidate['finishReason'] === 'string') finishReason = candidate['finishReason']
    if (typeof candidate['finishMessage'] === 'string') finishMessage = candidate['finishMessage']
    if (typeof candidate['continuationToken'] === 'string')
      continuationToken = candidate['continuationToken']
    readBlocked(candidate['safetyRatings'])
    readMetadata(candidate)
  }

  const ended = () => finishReason !== undefined || blockReason !== undefined

  function readChunk(chunk: unknown): void {
    if (!isRecord(chunk)) return
    const counts = chunk['usageMetadata']
    if (isRecord(counts)) usage = counts
    readFeedback(chunk['promptFeedback'])
    readCandidate(chunk['candidates'])
    // Counts that come with the end, or after it, are the whole turn's.
    if (isRecord(counts) && ended()) usageFinal = true
  }

  return {
    map: (chunk) => collect(() => readChunk(chunk)),
    get ended() {
      return ended()
    },
    get usageFinal() {
      return usageFinal
    },
    flush: closeOpenCall,
    drop() {
      if (open === undefined) return undefined
      const name = open.call['name']
      open = undefined
      return { name: typeof name === 'string' ? name : '' }
    },
    summary() {
      if (run !== undefined) run['text'] = runText
      return {
        parts,
        toolCallCount,
        usage,
        finishReason,
        finishMessage,
        continuationToken,
        blockedCategories,
        blockReason,
        blockReasonMessage,
        metadata,
      }
    },
  }
}

/**
 * What a part with a `text` string holds: nothing else (`plain`, which may join the text next to
 * it), a signature or metadata beside the text (`signed`, kept apart), or more than text (`other`,
 * e.g. an executable code block beside it). One pass over its keys, allocating nothing.
 */
function textPartKind(part: JsonRecord): 'plain' | 'signed' | 'other' {
  let kind: 'plain' | 'signed' = 'plain'
  for (const key in part) {
    if (key === 'text' || key === 'thought') continue
    if (key === 'thoughtSignature' || key === 'partMetadata') kind = 'signed'
    else return 'other'
  }
  return kind
}
