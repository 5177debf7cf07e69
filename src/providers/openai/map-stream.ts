import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses'
import type { Event, ToolCall } from '../../core/events.ts'
import { streamError } from './map-error.ts'

/** What the mapper has seen so far. */
export type StreamTotals = {
  text: string
  thinking: string
  toolCalls: ToolCall[]
  /** Name of a function call whose arguments were not valid JSON (a response cut short leaves one). */
  brokenToolCall: string | undefined
  /** Completed output items by `output_index`, for a terminal response that lacks `output`. */
  doneItems: unknown[]
  /** The `response.completed` or `response.incomplete` response, once it arrived. */
  terminal: Response | undefined
}

const PARAGRAPH = '\n\n'

/**
 * Maps Responses stream events to contract events, one at most per event: reasoning summary and
 * reasoning text deltas to `thinking` (a paragraph break between parts), output text and refusal
 * deltas to `text` (a paragraph break between messages), and a completed `function_call` item to
 * `tool-call`. Items are correlated by `output_index`, never by item id (some proxies rotate ids).
 * `error` events and `response.failed` throw a `ThinkwireError`; the terminal response is kept;
 * anything after it, and any unknown event, yields nothing.
 */
export function createStreamMapper(): {
  map(event: ResponseStreamEvent): Event | undefined
  totals: StreamTotals
} {
  const totals: StreamTotals = {
    text: '',
    thinking: '',
    toolCalls: [],
    brokenToolCall: undefined,
    doneItems: [],
    terminal: undefined,
  }
  // Which part the last delta of each lane belonged to, to put a paragraph break between parts.
  let thinkingItem = -1
  let thinkingPart = -1
  let textItem = -1

  function thinking(outputIndex: number, part: number, delta: string): Event | undefined {
    if (delta === '') return undefined
    let out = delta
    if (outputIndex !== thinkingItem || part !== thinkingPart) {
      if (totals.thinking !== '') out = PARAGRAPH + delta
      thinkingItem = outputIndex
      thinkingPart = part
    }
    totals.thinking += out
    return { type: 'thinking', text: out }
  }

  function text(outputIndex: number, delta: string): Event | undefined {
    if (delta === '') return undefined
    let out = delta
    if (outputIndex !== textItem) {
      if (totals.text !== '') out = PARAGRAPH + delta
      textItem = outputIndex
    }
    totals.text += out
    return { type: 'text', text: out }
  }

  function map(event: ResponseStreamEvent): Event | undefined {
    if (totals.terminal !== undefined) return undefined
    switch (event.type) {
      case 'response.output_text.delta':
        return text(event.output_index, event.delta)
      case 'response.reasoning_summary_text.delta':
        return thinking(event.output_index, event.summary_index, event.delta)
      case 'response.reasoning_text.delta':
        // Raw reasoning parts are numbered apart from summary parts.
        return thinking(event.output_index, -2 - event.content_index, event.delta)
      case 'response.refusal.delta':
        return text(event.output_index, event.delta)
      case 'response.output_item.done': {
        const item = event.item
        totals.doneItems[event.output_index] = item
        if (item.type !== 'function_call') return undefined
        const input = parseArguments(item.arguments)
        if (input === invalid) {
          totals.brokenToolCall ??= item.name
          return undefined
        }
        const call: ToolCall = { id: item.call_id, name: item.name, input }
        totals.toolCalls.push(call)
        return { type: 'tool-call', call }
      }
      case 'response.completed':
      case 'response.incomplete':
        totals.terminal = event.response
        return undefined
      case 'response.failed': {
        const error = event.response.error
        throw streamError(error?.code, error?.message ?? 'the response failed', event)
      }
      case 'error':
        throw streamError(event.code, event.message, event)
      default:
        return undefined
    }
  }

  return { map, totals }
}

const invalid = Symbol('invalid')

function parseArguments(json: string): unknown {
  if (json.trim() === '') return {}
  try {
    return JSON.parse(json) as unknown
  } catch {
    return invalid
  }
}
