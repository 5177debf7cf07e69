import type { Source } from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import type { Delta } from '../../kit/guard-stream.ts'
import { isRecord, type JsonRecord } from '../../kit/json.ts'
import { createReasoningDetails } from './reasoning-details.ts'
import { createSourceCollector } from './sources.ts'
import { createThinkTagSplitter } from './think-tags.ts'
import {
  createToolCallAssembler,
  parseArguments,
  withoutCutCall,
  type AssembledCall,
} from './tool-calls.ts'

/** How {@link createChunkMapper} reads a server's chunks. */
export type ChunkMapperOptions = {
  thinkTags: 'tags' | 'starts-inside' | 'off'
  /** The id of the call at `position` when the server gave none. */
  makeCallId(position: number): string
  /** Where notes on what was odd about the stream go (e.g. arguments that are not JSON). */
  warnings: string[]
}

/** Everything a finished stream said, for the finish record. */
export type ChunkSummary = {
  text: string
  reasoning: string
  /** The complete calls: a call the stop cut off is not among them. */
  calls: AssembledCall[]
  reasoningDetails: JsonRecord[]
  finishReason: string | undefined
  usage: JsonRecord | undefined
  /** The refusal text the server streamed in `refusal` deltas (also streamed as text); '' for none. */
  refusal: string
  /** What the answer cites, in order, once each. */
  sources: Source[]
}

/** A synchronous mapper from Chat Completions chunks to deltas. */
export type ChunkMapper = {
  /**
   * Maps one chunk, pushing its deltas to `out`. Returns true once the turn is complete: the
   * finish reason came, and so did the usage asked for with `include_usage` (in the same chunk,
   * after it, or in a chunk of its own before it), so nothing of the turn is left to read.
   */
  feed(chunk: unknown, out: Delta[]): boolean
  /** At the end of the stream: pushes what was still held back to `out`, and sums up the turn. */
  finish(out: Delta[]): ChunkSummary
}

/**
 * Maps Chat Completions chunks (choice 0) to deltas. Reasoning comes from `reasoning_details` when
 * a delta has readable text there, else from `reasoning_content` or `reasoning` (never both, so
 * nothing is shown twice), from `thinking` blocks of a content list, or from inline `<think>`
 * tags. Tool calls are assembled by index and emitted, complete, when the finish reason arrives;
 * one the stop cut off is never emitted. Sources come from `annotations` and Perplexity's
 * `search_results` and `citations`. Usage is the last one seen: the extra chunk with empty
 * `choices`, or a server's own place for it. Synchronous, with no I/O.
 */
export function createChunkMapper(options: ChunkMapperOptions): ChunkMapper {
  // The deltas of the chunk being mapped: the splitter's callbacks push here.
  let out: Delta[] = []
  let text = ''
  let reasoning = ''
  let finishReason: string | undefined
  let usage: JsonRecord | undefined
  // The usage seen is the turn's: it came with or after the finish reason, or on its own chunk.
  let usageFinal = false
  let refusal = ''
  let calls: AssembledCall[] = []
  let toolCallsEmitted = false
  const details = createReasoningDetails()
  const sources = createSourceCollector()
  const assembler = createToolCallAssembler(options.makeCallId)

  const thinking = (delta: string) => {
    if (delta === '') return
    reasoning += delta
    out.push({ type: 'thinking', text: delta })
  }
  const answer = (delta: string) => {
    if (delta === '') return
    text += delta
    out.push({ type: 'text', text: delta })
  }
  const splitter =
    options.thinkTags === 'off'
      ? undefined
      : createThinkTagSplitter({
          onThinking: thinking,
          onText: answer,
          startsInThinking: options.thinkTags === 'starts-inside',
        })

  function emitToolCalls(): void {
    if (toolCallsEmitted) return
    toolCallsEmitted = true
    splitter?.flush()
    calls = withoutCutCall(assembler.calls(), finishReason, refusal !== '', options.warnings)
    for (const call of calls) {
      const toolCall: ToolCall = {
        id: call.id,
        name: call.name,
        input: parseArguments(call, options.warnings),
      }
      out.push({ type: 'tool-call', call: toolCall })
    }
  }

  function readContent(content: unknown): void {
    if (typeof content === 'string') {
      if (splitter === undefined) answer(content)
      else splitter.feed(content)
      return
    }
    if (!Array.isArray(content)) return
    for (const block of content) {
      if (!isRecord(block)) continue
      if (block['type'] === 'text' && typeof block['text'] === 'string') answer(block['text'])
      if (block['type'] === 'thinking') {
        const inner = block['thinking']
        if (typeof inner === 'string') thinking(inner)
        else if (Array.isArray(inner))
          for (const piece of inner)
            if (isRecord(piece) && typeof piece['text'] === 'string') thinking(piece['text'])
      }
    }
  }

  function readDelta(delta: JsonRecord): void {
    const fragments = delta['reasoning_details']
    const fromDetails = Array.isArray(fragments) ? details.add(fragments) : ''
    if (fromDetails !== '') thinking(fromDetails)
    else {
      const field = delta['reasoning_content'] ?? delta['reasoning']
      if (typeof field === 'string') thinking(field)
    }
    readContent(delta['content'])
    if (typeof delta['refusal'] === 'string' && delta['refusal'] !== '') {
      refusal += delta['refusal']
      answer(delta['refusal'])
    }
    if (Array.isArray(delta['tool_calls'])) assembler.add(delta['tool_calls'])
    sources.addAnnotations(delta['annotations'])
  }

  return {
    feed(chunk, sink) {
      if (!isRecord(chunk)) return false
      out = sink
      const seen = usageOf(chunk)
      if (seen !== undefined) usage = seen
      sources.addSearchResults(chunk['search_results'])
      sources.addCitations(chunk['citations'])
      const choice = choiceZero(chunk['choices'])
      if (choice !== undefined) {
        if (isRecord(choice['delta'])) readDelta(choice['delta'])
        const reason = choice['finish_reason']
        if (typeof reason === 'string' && reason !== '') {
          finishReason = reason
          emitToolCalls()
        }
      }
      if (seen !== undefined && (finishReason !== undefined || choice === undefined))
        usageFinal = true
      return finishReason !== undefined && usageFinal
    },
    finish(sink) {
      out = sink
      splitter?.flush()
      emitToolCalls()
      return {
        text,
        reasoning,
        calls,
        reasoningDetails: details.entries(),
        finishReason,
        usage,
        refusal,
        sources: sources.sources(),
      }
    },
  }
}

/** The chunk's usage: the standard field, or Groq's `x_groq.usage`. */
function usageOf(chunk: JsonRecord): JsonRecord | undefined {
  if (isRecord(chunk['usage'])) return chunk['usage']
  const groq = chunk['x_groq']
  return isRecord(groq) && isRecord(groq['usage']) ? groq['usage'] : undefined
}

/** The choice with index 0 (or without an index), else the first one. */
function choiceZero(choices: unknown): JsonRecord | undefined {
  if (!Array.isArray(choices)) return undefined
  for (const choice of choices) if (isRecord(choice) && (choice['index'] ?? 0) === 0) return choice
  const first: unknown = choices[0]
  return isRecord(first) ? first : undefined
}
