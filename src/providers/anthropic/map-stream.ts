import { ThinkwireError } from '../../core/errors.ts'
import type { Delta } from '../../kit/guard-stream.ts'
import { isRecord, type JsonRecord } from '../../kit/json.ts'
import { parsePartialJson } from '../../kit/partial-json.ts'
import { END } from '../../kit/read-event-stream.ts'

/** The message a stream assembled, once `message_stop` arrived. */
export type StreamedMessage = {
  /** The content blocks, as the SDK's `finalMessage().content` holds them, as plain JSON. */
  content: JsonRecord[]
  /** `message_start`'s usage with `message_delta`'s totals written over it. */
  usage: JsonRecord
  stopReason: unknown
  /** `message_delta`'s `stop_details` (a refusal's category and explanation), as sent. */
  stopDetails: unknown
  /** The message's `container` (code execution and other container tools), as sent; null when none. */
  container: unknown
  /**
   * Indexes of the blocks that take an input (`tool_use`, `server_tool_use`, ...) whose input is
   * unfinished: not valid JSON, or the block never got its `content_block_stop`. A response cut
   * short (by the output limit or a refusal) leaves one.
   */
  cut: number[]
}

/** The mapper of one stream: parsed events in, deltas out, the message at the end. */
export type StreamMapper = {
  /** Maps one parsed event: a delta, `END` at `message_stop`, or undefined for nothing to show. */
  map(event: unknown): Delta | typeof END | undefined
  /** The assembled message; undefined until `message_stop` arrived. */
  message(): StreamedMessage | undefined
}

/**
 * Maps Anthropic stream events to deltas, one at most per event (`thinking_delta` to `thinking`,
 * `text_delta` to `text`, a finished `tool_use` block to `tool-call`, and a paragraph break as
 * `thinking` at the start of each thinking block after one that showed text, so interleaved
 * thinking does not run together), and assembles the content blocks beside them the way the SDK's
 * `MessageStream` does: each block as `content_block_start` sent it, text, thinking and citations
 * appended, a signature replaced, a compaction's summary set, and the `input_json_delta` fragments
 * of any block with an `input` joined and parsed only at `content_block_stop` (fragments split
 * strings and escapes anywhere; a block that got none keeps the input it started with, and so
 * does its call). A tool call whose input is unfinished is never streamed. Unknown
 * block types stay as sent; unknown deltas and events change nothing. Synchronous and free of I/O.
 */
export function createStreamMapper(): StreamMapper {
  let content: JsonRecord[] | undefined
  let usage: JsonRecord = {}
  let stopReason: unknown = null
  let stopDetails: unknown = null
  let container: unknown = null
  let done = false
  /** Some thinking text was streamed: a later thinking block starts with a paragraph break. */
  let thoughtShown = false
  // The unparsed input of each block that got `input_json_delta`s, by index.
  const json: (string | undefined)[] = []
  /** Blocks started and not yet stopped, and blocks whose input was not JSON, by index. */
  const open = new Set<number>()
  const broken = new Set<number>()

  function map(event: unknown): Delta | typeof END | undefined {
    if (!isRecord(event)) return undefined
    switch (event['type']) {
      case 'content_block_delta': {
        const delta = event['delta']
        if (!isRecord(delta)) return undefined
        const index = indexOf(event)
        const block = content?.[index]
        switch (delta['type']) {
          case 'text_delta': {
            const text = delta['text']
            if (typeof text !== 'string') return undefined
            if (block?.['type'] === 'text') {
              const before = block['text']
              block['text'] = (typeof before === 'string' ? before : '') + text
            }
            return { type: 'text', text }
          }
          case 'thinking_delta': {
            const text = delta['thinking']
            if (typeof text !== 'string') return undefined
            if (block?.['type'] === 'thinking') {
              const before = block['thinking']
              block['thinking'] = (typeof before === 'string' ? before : String(before)) + text
            }
            thoughtShown ||= text !== ''
            return { type: 'thinking', text }
          }
          case 'signature_delta':
            if (block?.['type'] === 'thinking') block['signature'] = delta['signature']
            return undefined
          case 'citations_delta':
            if (block?.['type'] === 'text') {
              const citations = block['citations']
              if (Array.isArray(citations)) citations.push(delta['citation'])
              else block['citations'] = [delta['citation']]
            }
            return undefined
          case 'input_json_delta': {
            const part = delta['partial_json']
            if (block !== undefined && takesInput(block) && typeof part === 'string')
              json[index] = (json[index] ?? '') + part
            return undefined
          }
          case 'compaction_delta':
            // The delta carries the summary whole (null when compaction failed): it replaces.
            if (block?.['type'] === 'compaction') {
              block['content'] = delta['content']
              if ('encrypted_content' in delta)
                block['encrypted_content'] = delta['encrypted_content']
            }
            return undefined
          default:
            return undefined
        }
      }
      case 'content_block_start': {
        const block = event['content_block']
        if (content === undefined || !isRecord(block)) return undefined
        open.add(content.push(block) - 1)
        // Interleaved thinking (thinking, tool use, thinking, ...): one paragraph between blocks.
        if (block['type'] === 'thinking' && thoughtShown) return { type: 'thinking', text: '\n\n' }
        return undefined
      }
      case 'content_block_stop': {
        const index = indexOf(event)
        const block = content?.[index]
        // A block stops once: a repeated stop would stream its call twice.
        if (block === undefined || !open.delete(index)) return undefined
        const input = json[index]
        if (input !== undefined) setInput(block, input, index)
        if (block['type'] !== 'tool_use' || broken.has(index)) return undefined
        // Parsed again: the call and the block in the items are separate objects. With no
        // fragments the input is the block's own: Anthropic starts every call with `{}`, while
        // compatible servers (Ollama, some gateways) send the whole input there and no delta.
        const args: unknown =
          input === undefined
            ? startInput(block['input'])
            : input.trim() === ''
              ? {}
              : JSON.parse(input)
        return {
          type: 'tool-call',
          call: { id: String(block['id']), name: String(block['name']), input: args },
        }
      }
      case 'message_start': {
        if (content !== undefined) {
          throw new ThinkwireError({
            kind: 'server',
            message: 'anthropic: a second message_start arrived before message_stop',
            provider: 'anthropic',
          })
        }
        const message = event['message']
        const start = isRecord(message) ? message : {}
        const blocks = start['content']
        content = []
        if (Array.isArray(blocks))
          for (const block of blocks) if (isRecord(block)) content.push(block)
        if (isRecord(start['usage'])) usage = start['usage']
        stopReason = start['stop_reason'] ?? null
        container = start['container'] ?? null
        return undefined
      }
      case 'message_delta': {
        const delta = event['delta']
        if (isRecord(delta)) {
          stopReason = delta['stop_reason']
          stopDetails = delta['stop_details'] ?? null
          if (delta['container'] != null) container = delta['container']
        }
        const totals = event['usage']
        // Totals, not increments: each one present replaces the one before.
        if (isRecord(totals)) {
          usage['output_tokens'] = totals['output_tokens']
          for (const key of LATER_TOTALS) if (totals[key] != null) usage[key] = totals[key]
        }
        return undefined
      }
      case 'message_stop': {
        const blocks = content
        if (blocks === undefined) return END
        // A block whose `content_block_stop` never came still gets its input, as the SDK's does.
        json.forEach((input, index) => {
          const block = blocks[index]
          if (input !== undefined && block !== undefined) setInput(block, input, index)
        })
        done = true
        return END
      }
      default:
        return undefined
    }
  }

  function setInput(block: JsonRecord, input: string, index: number): void {
    json[index] = undefined
    const parsed = parseInput(input)
    if (!parsed.complete) broken.add(index)
    // The SDK re-creates the block with `input` last: keep its key order, so replays match.
    delete block['input']
    block['input'] = parsed.value
  }

  function assembled(): StreamedMessage | undefined {
    if (!done || content === undefined) return undefined
    const blocks = content
    const cut = blocks.flatMap((block, index) =>
      takesInput(block) && (open.has(index) || broken.has(index)) ? [index] : [],
    )
    return { content: blocks, usage, stopReason, stopDetails, container, cut }
  }

  return { map, message: assembled }
}

/** The block index an event names; -1 (no block) when it names none. */
function indexOf(event: JsonRecord): number {
  const index = event['index']
  return typeof index === 'number' ? index : -1
}

/** Blocks whose input arrives as `input_json_delta` fragments: tool calls, and any with `input`. */
function takesInput(block: JsonRecord): boolean {
  const type = block['type']
  return type === 'tool_use' || type === 'server_tool_use' || 'input' in block
}

/** A copy of the input a `tool_use` block started with: `{}` when it is not an object. */
function startInput(input: unknown): unknown {
  return isRecord(input) ? structuredClone(input) : {}
}

/** `message_delta` usage totals that replace the earlier ones when present. */
const LATER_TOTALS = [
  'input_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'server_tool_use',
  'output_tokens_details',
] as const

/**
 * A block's input as the SDK reads it (`{}` when blank, JSON, or as much of it as parses: a
 * cut-off response), and whether it was complete (blank, or valid JSON).
 */
function parseInput(json: string): { value: unknown; complete: boolean } {
  if (json.trim() === '') return { value: {}, complete: true }
  return parsePartialJson(json) ?? { value: {}, complete: false }
}
