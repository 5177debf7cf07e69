import type { ToolCall } from '../../core/events.ts'
import { createPartialArgs } from './partial-args.ts'
import { isRecord, type JsonRecord } from './record.ts'

/** What {@link createChunkReader} reports. */
export type ChunkReaderCallbacks = {
  onThinking(text: string): void
  onText(text: string): void
  onToolCall(call: ToolCall): void
  /** The id of the `index`-th call of the turn when Gemini gave it none. */
  makeCallId(index: number): string
}

/** Everything a finished stream said, for the `done` turn. */
export type ChunkSummary = {
  /** The candidate's parts in order, signatures on the parts they came on. */
  parts: JsonRecord[]
  toolCalls: ToolCall[]
  /** The last `usageMetadata` (each chunk carries the running total). */
  usage: JsonRecord | undefined
  finishReason: string | undefined
  finishMessage: string | undefined
  /** Safety categories that blocked the answer (`safetyRatings[].blocked`). */
  blockedCategories: string[]
  /** Set when the prompt itself was blocked (`promptFeedback.blockReason`). */
  blockReason: string | undefined
}

type OpenCall = { part: JsonRecord; call: JsonRecord; args: ReturnType<typeof createPartialArgs> }

/**
 * Reads streamed `GenerateContentResponse` chunks (first candidate only). Text parts become
 * `thinking` (`thought: true`) or `text`, function calls become complete tool calls, and every
 * part is kept in order for replay. Plain text parts merge into the one before them only when
 * neither carries a signature, so a signature never moves to another part or gets lost. An empty
 * text part without a signature carries nothing and is dropped. Function calls whose arguments
 * arrive in pieces (`willContinue` + `partialArgs`) are assembled into one complete call.
 */
export function createChunkReader(callbacks: ChunkReaderCallbacks): {
  feed(chunk: unknown): void
  finish(): ChunkSummary
} {
  const parts: JsonRecord[] = []
  const toolCalls: ToolCall[] = []
  let usage: JsonRecord | undefined
  let finishReason: string | undefined
  let finishMessage: string | undefined
  let blockReason: string | undefined
  const blockedCategories: string[] = []
  let open: OpenCall | undefined

  function emitCall(part: JsonRecord, call: JsonRecord, args: unknown): void {
    const id = typeof call['id'] === 'string' && call['id'] !== '' ? call['id'] : undefined
    const name = typeof call['name'] === 'string' ? call['name'] : ''
    const toolCall: ToolCall = {
      id: id ?? callbacks.makeCallId(toolCalls.length),
      name,
      input: args ?? {},
    }
    parts.push(part)
    toolCalls.push(toolCall)
    callbacks.onToolCall(toolCall)
  }

  function closeOpenCall(): void {
    if (open === undefined) return
    const { part, call, args } = open
    open = undefined
    const complete: JsonRecord = { ...call, args: args.value() }
    delete complete['willContinue']
    delete complete['partialArgs']
    emitCall({ ...part, functionCall: complete }, complete, complete['args'])
  }

  function readFunctionCall(part: JsonRecord, call: JsonRecord): void {
    const isContinuation = open !== undefined && typeof call['name'] !== 'string'
    if (isContinuation && open !== undefined) {
      open.args.apply(call['partialArgs'])
      if (typeof part['thoughtSignature'] === 'string' && !('thoughtSignature' in open.part))
        open.part = { ...open.part, thoughtSignature: part['thoughtSignature'] }
      if (call['willContinue'] !== true) closeOpenCall()
      return
    }
    closeOpenCall()
    if (call['willContinue'] === true || 'partialArgs' in call) {
      const args = createPartialArgs()
      args.apply(call['partialArgs'])
      open = { part, call, args }
      if (call['willContinue'] !== true) closeOpenCall()
      return
    }
    emitCall({ ...part }, call, call['args'])
  }

  function readText(part: JsonRecord, text: string): void {
    const thought = part['thought'] === true
    if (text !== '') (thought ? callbacks.onThinking : callbacks.onText)(text)
    const plain = isPlainText(part)
    const last = parts.at(-1)
    if (
      plain &&
      last !== undefined &&
      isPlainText(last) &&
      (last['thought'] === true) === thought
    ) {
      parts[parts.length - 1] = { ...last, text: String(last['text']) + text }
      return
    }
    if (plain && text === '') return
    parts.push({ ...part })
  }

  function readPart(part: unknown): void {
    if (!isRecord(part)) return
    const call = part['functionCall']
    if (isRecord(call)) return readFunctionCall(part, call)
    closeOpenCall()
    const text = part['text']
    if (typeof text === 'string' && !hasOtherContent(part)) return readText(part, text)
    // Anything else (inline data, code execution, server tool parts): kept for replay, not shown.
    parts.push({ ...part })
  }

  return {
    feed(chunk) {
      if (!isRecord(chunk)) return
      if (isRecord(chunk['usageMetadata'])) usage = chunk['usageMetadata']
      const feedback = chunk['promptFeedback']
      if (isRecord(feedback) && typeof feedback['blockReason'] === 'string')
        blockReason = feedback['blockReason']
      const candidates = chunk['candidates']
      const candidate = Array.isArray(candidates) ? candidates[0] : undefined
      if (!isRecord(candidate)) return
      const content = candidate['content']
      if (isRecord(content) && Array.isArray(content['parts'])) {
        for (const part of content['parts']) readPart(part)
      }
      if (typeof candidate['finishReason'] === 'string') finishReason = candidate['finishReason']
      if (typeof candidate['finishMessage'] === 'string') finishMessage = candidate['finishMessage']
      const ratings = candidate['safetyRatings']
      for (const rating of Array.isArray(ratings) ? ratings : []) {
        if (!isRecord(rating) || rating['blocked'] !== true) continue
        const category = rating['category']
        if (typeof category === 'string' && !blockedCategories.includes(category))
          blockedCategories.push(category)
      }
    },
    finish() {
      closeOpenCall()
      return {
        parts,
        toolCalls,
        usage,
        finishReason,
        finishMessage,
        blockedCategories,
        blockReason,
      }
    },
  }
}

/** A text part with nothing else on it (no signature, no metadata). */
function isPlainText(part: JsonRecord): boolean {
  return Object.keys(part).every((key) => key === 'text' || key === 'thought')
}

const TEXT_PART_KEYS = new Set(['text', 'thought', 'thoughtSignature', 'partMetadata'])

/** True when the part holds more than text (e.g. an executable code block next to it). */
function hasOtherContent(part: JsonRecord): boolean {
  return Object.keys(part).some((key) => !TEXT_PART_KEYS.has(key))
}
