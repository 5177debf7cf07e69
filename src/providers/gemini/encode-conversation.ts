import type { Content, Part } from '@google/genai'
import type {
  AssistantTurn,
  OpaqueItems,
  ToolTurn,
  Turn,
  UserTurn,
} from '../../core/conversation.ts'
import { encodeTurns, type ReplayTag } from '../../kit/replay.ts'
import { isRecord } from '../../kit/json.ts'
import { isContinuationRecord } from './continuation.ts'

/**
 * The signature Gemini documents for function calls it did not sign itself (history from another
 * model or written by hand): it skips the validation a Gemini 3 request would otherwise fail.
 */
export const PLACEHOLDER_SIGNATURE = 'skip_thought_signature_validator'

/** How turns are encoded for one request. */
export type EncodeOptions = {
  /** Put {@link PLACEHOLDER_SIGNATURE} on the first function call of each re-encoded step. */
  placeholderSignature: boolean
}

/**
 * The `contents` of a request. A turn this model made under the same thinking mode is sent back
 * as its parts, verbatim (signatures on the same parts, in the same order); any other assistant
 * turn is rebuilt from its text and tool calls, without reasoning or signatures. Tool results
 * become `functionResponse` parts that carry the call's own id only when Gemini gave it one.
 */
export function encodeContents(
  turns: readonly Turn[],
  tag: ReplayTag,
  options: EncodeOptions,
): Content[] {
  // The wire id of each tool call of the latest assistant turn (undefined: Gemini gave none).
  let wireIds = new Map<string, string | undefined>()
  const contents = encodeTurns<Content | null>(turns, tag, {
    user: (turn) => encodeUser(turn),
    tool: (turn) => encodeToolResults(turn, wireIds),
    replay: (items, turn) => {
      const parts = replayParts(items)
      if (parts === undefined) {
        wireIds = new Map()
        return reencode(turn, options)
      }
      wireIds = wireIdsOf(parts, turn)
      return { role: 'model', parts }
    },
    reencode: (turn) => {
      wireIds = new Map()
      return reencode(turn, options)
    },
  })
  return contents.filter((content): content is Content => content !== null)
}

function encodeUser(turn: UserTurn): Content {
  if (typeof turn.content === 'string') return { role: 'user', parts: [{ text: turn.content }] }
  const parts: Part[] = turn.content.map((part) => {
    if (part.type === 'text') return { text: part.text }
    if ('data' in part) return { inlineData: { mimeType: part.mediaType, data: part.data } }
    return { fileData: { fileUri: part.url } }
  })
  return { role: 'user', parts }
}

function encodeToolResults(turn: ToolTurn, wireIds: Map<string, string | undefined>): Content {
  const parts: Part[] = turn.results.map((result) => {
    const id = wireIds.get(result.callId)
    const response = result.isError === true ? { error: result.output } : { output: result.output }
    return {
      functionResponse:
        id === undefined ? { name: result.name, response } : { id, name: result.name, response },
    }
  })
  return { role: 'user', parts }
}

/**
 * The stored parts, or undefined when they are not a list of objects or hold no part (then the
 * turn is rebuilt). A continuation token kept beside them is not a part and stays out.
 */
function replayParts(items: OpaqueItems): Part[] | undefined {
  if (!items.data.every(isRecord)) return undefined
  const parts = items.data.filter((record) => !isContinuationRecord(record))
  // Each element is a part exactly as Gemini sent it; the SDK's `Part` type describes them.
  return parts.length === 0 ? undefined : (parts as Part[])
}

/** Matches the turn's tool calls, in order, to the function-call parts that made them. */
function wireIdsOf(parts: Part[], turn: AssistantTurn): Map<string, string | undefined> {
  const ids = new Map<string, string | undefined>()
  const calls = turn.toolCalls ?? []
  let i = 0
  for (const part of parts) {
    if (part.functionCall === undefined) continue
    const call = calls[i++]
    if (call === undefined) break
    const id = part.functionCall.id
    ids.set(call.id, typeof id === 'string' && id !== '' ? id : undefined)
  }
  return ids
}

function reencode(turn: AssistantTurn, options: EncodeOptions): Content | null {
  const parts: Part[] = []
  if (turn.text !== '') parts.push({ text: turn.text })
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    // Gemini takes arguments as an object only; anything else is wrapped so nothing is lost.
    const args = isRecord(call.input)
      ? call.input
      : call.input === undefined || call.input === null
        ? {}
        : { value: call.input }
    const part: Part = { functionCall: { name: call.name, args } }
    if (i === 0 && options.placeholderSignature) part.thoughtSignature = PLACEHOLDER_SIGNATURE
    parts.push(part)
  }
  // Gemini rejects a content without parts; an empty turn carries nothing worth sending.
  return parts.length === 0 ? null : { role: 'model', parts }
}
