import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages'
import type { Event, ToolCall } from '../../core/events.ts'

/** What the mapper has seen so far. */
export type StreamTotals = {
  text: string
  thinking: string
  toolCalls: ToolCall[]
  /** Name of a tool call whose input was not valid JSON (a response cut short leaves one). */
  brokenToolCall: string | undefined
}

type OpenTool = { id: string; name: string; json: string }

/**
 * Maps Anthropic stream events to contract events, one at most per event: `thinking_delta` to
 * `thinking`, `text_delta` to `text`, and a finished `tool_use` block (its `input_json_delta`
 * fragments joined and parsed only at `content_block_stop`, since fragments split strings and
 * escapes anywhere) to `tool-call`. Everything else (signatures, redacted thinking, server tools,
 * citations, unknown events) yields nothing; the final message keeps it.
 */
export function createStreamMapper(): {
  map(event: RawMessageStreamEvent): Event | undefined
  totals: StreamTotals
} {
  const totals: StreamTotals = { text: '', thinking: '', toolCalls: [], brokenToolCall: undefined }
  const open = new Map<number, OpenTool>()

  function map(event: RawMessageStreamEvent): Event | undefined {
    switch (event.type) {
      case 'content_block_delta': {
        const delta = event.delta
        switch (delta.type) {
          case 'text_delta':
            totals.text += delta.text
            return { type: 'text', text: delta.text }
          case 'thinking_delta':
            totals.thinking += delta.thinking
            return { type: 'thinking', text: delta.thinking }
          case 'input_json_delta': {
            const tool = open.get(event.index)
            if (tool !== undefined) tool.json += delta.partial_json
            return undefined
          }
          default:
            return undefined
        }
      }
      case 'content_block_start': {
        const block = event.content_block
        if (block.type === 'tool_use')
          open.set(event.index, { id: block.id, name: block.name, json: '' })
        return undefined
      }
      case 'content_block_stop': {
        const tool = open.get(event.index)
        if (tool === undefined) return undefined
        open.delete(event.index)
        const input = parseInput(tool.json)
        if (input === invalid) {
          totals.brokenToolCall ??= tool.name
          return undefined
        }
        const call: ToolCall = { id: tool.id, name: tool.name, input }
        totals.toolCalls.push(call)
        return { type: 'tool-call', call }
      }
      default:
        return undefined
    }
  }

  return { map, totals }
}

const invalid = Symbol('invalid')

function parseInput(json: string): unknown {
  if (json.trim() === '') return {}
  try {
    return JSON.parse(json) as unknown
  } catch {
    return invalid
  }
}
