import type { ToolCall } from '../../core/events.ts'
import { isRecord, type JsonRecord } from './record.ts'
import { createReasoningDetails } from './reasoning-details.ts'
import { createThinkTagSplitter } from './think-tags.ts'
import { createToolCallAssembler, parseArguments, type AssembledCall } from './tool-calls.ts'

/** How {@link createChunkReader} reads a server's chunks. */
export type ChunkReaderOptions = {
  thinkTags: 'tags' | 'starts-inside' | 'off'
  onThinking(text: string): void
  onText(text: string): void
  onToolCall(call: ToolCall): void
  /** The id of the call at `position` when the server gave none. */
  makeCallId(position: number): string
  /** Where notes on what was odd about the stream go (e.g. arguments that are not JSON). */
  warnings: string[]
}

/** Everything a finished stream said, for the `done` turn. */
export type ChunkSummary = {
  text: string
  reasoning: string
  calls: AssembledCall[]
  toolCalls: ToolCall[]
  reasoningDetails: JsonRecord[]
  finishReason: string | undefined
  usage: JsonRecord | undefined
  refused: boolean
}

/**
 * Reads Chat Completions chunks (choice 0). Reasoning comes from `reasoning_details` when a delta
 * has readable text there, else from `reasoning_content` or `reasoning` (never both, so nothing is
 * shown twice), from `thinking` blocks of a content list, or from inline `<think>` tags. Tool calls
 * are assembled by index and emitted, complete, when the finish reason arrives. Usage is the last
 * one seen: the extra chunk with empty `choices`, or a server's own place for it.
 */
export function createChunkReader(options: ChunkReaderOptions): {
  feed(chunk: unknown): void
  finish(): ChunkSummary
} {
  let text = ''
  let reasoning = ''
  let finishReason: string | undefined
  let usage: JsonRecord | undefined
  let refused = false
  let toolCalls: ToolCall[] | undefined
  const details = createReasoningDetails()
  const assembler = createToolCallAssembler(options.makeCallId)

  const thinking = (delta: string) => {
    if (delta === '') return
    reasoning += delta
    options.onThinking(delta)
  }
  const answer = (delta: string) => {
    if (delta === '') return
    text += delta
    options.onText(delta)
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
    if (toolCalls !== undefined) return
    splitter?.flush()
    toolCalls = assembler.calls().map((call) => ({
      id: call.id,
      name: call.name,
      input: parseArguments(call, options.warnings),
    }))
    for (const call of toolCalls) options.onToolCall(call)
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
      refused = true
      answer(delta['refusal'])
    }
    if (Array.isArray(delta['tool_calls'])) assembler.add(delta['tool_calls'])
  }

  return {
    feed(chunk) {
      if (!isRecord(chunk)) return
      if (isRecord(chunk['usage'])) usage = chunk['usage']
      else if (isRecord(chunk['x_groq']) && isRecord(chunk['x_groq']['usage']))
        usage = chunk['x_groq']['usage']
      const choices = chunk['choices']
      const choice = Array.isArray(choices)
        ? (choices.find((c) => isRecord(c) && (c['index'] ?? 0) === 0) ?? choices[0])
        : undefined
      if (!isRecord(choice)) return
      if (isRecord(choice['delta'])) readDelta(choice['delta'])
      if (typeof choice['finish_reason'] === 'string' && choice['finish_reason'] !== '') {
        finishReason = choice['finish_reason']
        emitToolCalls()
      }
    },
    finish() {
      splitter?.flush()
      emitToolCalls()
      return {
        text,
        reasoning,
        calls: assembler.calls(),
        toolCalls: toolCalls ?? [],
        reasoningDetails: details.entries(),
        finishReason,
        usage,
        refused,
      }
    },
  }
}
