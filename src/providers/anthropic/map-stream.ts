import { partialParse } from '@anthropic-ai/sdk/_vendor/partial-json-parser/parser'
import { ThinkwireError } from '../../core/errors.ts'
import type { Delta } from '../../kit/guard-stream.ts'
import { isRecord, type JsonRecord } from '../../kit/json.ts'
import { END } from '../../kit/read-event-stream.ts'

/** The message a stream assembled, once `message_stop` arrived. */
export type StreamedMessage = {
  /** The content blocks, as the SDK's `finalMessage().content` holds them, as plain JSON. */
  content: unknown[]
  /** `message_start`'s usage with `message_delta`'s totals written over it. */
  usage: JsonRecord
  stopReason: unknown
  /** Name of a tool call whose input was not valid JSON (a response cut short leaves one). */
  brokenToolCall: string | undefined
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
 * `text_delta` to `text`, a finished `tool_use` block to `tool-call`), and assembles the content
 * blocks beside them the way the SDK's `MessageStream` does: each block as `content_block_start`
 * sent it, text, thinking and citations appended, a signature replaced, and the `input_json_delta`
 * fragments of any block with an `input` joined and parsed only at `content_block_stop` (fragments
 * split strings and escapes anywhere). Unknown block types stay as sent; unknown deltas and events
 * change nothing. Synchronous and free of I/O.
 */
export function createStreamMapper(): StreamMapper {
  let content: JsonRecord[] | undefined
  let usage: JsonRecord = {}
  let stopReason: unknown = null
  let brokenToolCall: string | undefined
  let done = false
  // The unparsed input of each block that got `input_json_delta`s, by index.
  const json: (string | undefined)[] = []

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
          default:
            return undefined
        }
      }
      case 'content_block_start': {
        const block = event['content_block']
        if (content === undefined || !isRecord(block)) return undefined
        content.push(block)
        return undefined
      }
      case 'content_block_stop': {
        const index = indexOf(event)
        const block = content?.[index]
        if (block === undefined) return undefined
        const input = json[index]
        if (input !== undefined) setInput(block, input, index)
        if (block['type'] !== 'tool_use') return undefined
        const call = toolCall(block, input ?? '')
        if (call === undefined) brokenToolCall ??= String(block['name'])
        return call
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
        return undefined
      }
      case 'message_delta': {
        const delta = event['delta']
        if (isRecord(delta)) stopReason = delta['stop_reason']
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
    // The SDK re-creates the block with `input` last: keep its key order, so replays match.
    delete block['input']
    block['input'] = input === '' ? {} : parseLoosely(input)
  }

  return {
    map,
    message: () =>
      done && content !== undefined ? { content, usage, stopReason, brokenToolCall } : undefined,
  }
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

/** `message_delta` usage totals that replace the earlier ones when present. */
const LATER_TOTALS = [
  'input_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'server_tool_use',
  'output_tokens_details',
] as const

/** The `tool-call` of a finished `tool_use` block, or undefined when its input is not JSON. */
function toolCall(block: JsonRecord, json: string): Delta | undefined {
  let input: unknown = {}
  if (json.trim() !== '') {
    try {
      input = JSON.parse(json)
    } catch {
      return undefined
    }
  }
  return {
    type: 'tool-call',
    call: { id: String(block['id']), name: String(block['name']), input },
  }
}

/** A block's input as the SDK reads it: JSON, or as much of it as parses (a cut-off response). */
function parseLoosely(json: string): unknown {
  try {
    return JSON.parse(json)
  } catch {
    try {
      return partialParse(json) as unknown
    } catch {
      return {}
    }
  }
}
