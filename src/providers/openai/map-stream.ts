import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses'
import { ThinkwireError } from '../../core/errors.ts'
import type { Delta, Finish } from '../../kit/guard-stream.ts'
import { END } from '../../kit/read-event-stream.ts'
import { streamError } from './map-error.ts'
import { mapFinish } from './map-finish.ts'

/** Maps the events of one response; see {@link createStreamMapper}. */
export type StreamMapper = {
  /** The delta of one event, if it has one; `END` at the terminal event, after which nothing is mapped. */
  map(event: ResponseStreamEvent): Delta | typeof END | undefined
  /** The finish record once the terminal event arrived, else undefined (the stream was cut short). */
  finish(): Finish | undefined
}

const PARAGRAPH = '\n\n'

/**
 * Maps Responses stream events to deltas, one at most per event: reasoning summary and reasoning
 * text deltas to `thinking` (a paragraph break between parts), output text and refusal deltas to
 * `text` (a paragraph break between messages), and a completed `function_call` item to
 * `tool-call`. Items are correlated by `output_index`, never by item id (some proxies rotate ids).
 * `error` events and `response.failed` throw a `ThinkwireError`; `response.completed` and
 * `response.incomplete` end the response; any unknown event maps to nothing.
 */
export function createStreamMapper(): StreamMapper {
  // Which part the last delta of each lane belonged to, to put a paragraph break between parts.
  let thinkingItem = -1
  let thinkingPart = -1
  let textItem = -1
  let hasThinking = false
  let hasText = false
  /** Name of a function call whose arguments were not valid JSON (a response cut short leaves one). */
  let brokenToolCall: string | undefined
  /** Completed output items by `output_index`, for a terminal response that lacks `output`. */
  const doneItems: unknown[] = []
  let terminal: Response | undefined

  function thinking(outputIndex: number, part: number, delta: string): Delta | undefined {
    if (delta === '') return undefined
    let text = delta
    if (outputIndex !== thinkingItem || part !== thinkingPart) {
      if (hasThinking) text = PARAGRAPH + delta
      thinkingItem = outputIndex
      thinkingPart = part
    }
    hasThinking = true
    return { type: 'thinking', text }
  }

  function answer(outputIndex: number, delta: string): Delta | undefined {
    if (delta === '') return undefined
    let text = delta
    if (outputIndex !== textItem) {
      if (hasText) text = PARAGRAPH + delta
      textItem = outputIndex
    }
    hasText = true
    return { type: 'text', text }
  }

  function map(event: ResponseStreamEvent): Delta | typeof END | undefined {
    switch (event.type) {
      case 'response.output_text.delta':
        return answer(event.output_index, event.delta)
      case 'response.reasoning_summary_text.delta':
        return thinking(event.output_index, event.summary_index, event.delta)
      case 'response.reasoning_text.delta':
        // Raw reasoning parts are numbered apart from summary parts.
        return thinking(event.output_index, -2 - event.content_index, event.delta)
      case 'response.refusal.delta':
        return answer(event.output_index, event.delta)
      case 'response.output_item.done': {
        const item = event.item
        doneItems[event.output_index] = item
        if (item.type !== 'function_call') return undefined
        const input = parseArguments(item.arguments)
        if (input === invalid) {
          brokenToolCall ??= item.name
          return undefined
        }
        return { type: 'tool-call', call: { id: item.call_id, name: item.name, input } }
      }
      case 'response.completed':
      case 'response.incomplete':
        terminal = event.response
        return END
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

  function finish(): Finish | undefined {
    if (terminal === undefined) return undefined
    const record = mapFinish(terminal, doneItems)
    // Arguments cut off by the output limit are expected; anywhere else they are the provider's fault.
    if (brokenToolCall !== undefined && record.stopReason !== 'length') {
      throw new ThinkwireError({
        kind: 'server',
        message: `openai: the arguments of function call '${brokenToolCall}' are not valid JSON`,
        provider: 'openai',
      })
    }
    return record
  }

  return { map, finish }
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
