import { APIError } from 'openai'
import type {
  Response,
  ResponseOutputItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses'
import type { Delta, Finish } from '../../kit/guard-stream.ts'
import { END } from '../../kit/read-event-stream.ts'
import { clientCall, mapFinish, type CallRef } from './map-finish.ts'
import type { StreamedAnnotation } from './map-sources.ts'

/** Maps the events of one response; see {@link createStreamMapper}. */
export type StreamMapper = {
  /** The delta of one event, if it has one; `END` at the terminal event, after which nothing is mapped. */
  map(event: ResponseStreamEvent): Delta | typeof END | undefined
  /** The finish record once the terminal event arrived, else undefined (the stream was cut short). */
  finish(): Finish | undefined
  /** The service tier the terminal response says served the call, if it names one. */
  serviceTier(): string | undefined
}

const PARAGRAPH = '\n\n'

/**
 * Maps Responses stream events to deltas, one at most per event: reasoning summary and reasoning
 * text deltas to `thinking` (a paragraph break between parts), output text and refusal deltas to
 * `text` (a paragraph break between messages), except the text of a message in the `commentary`
 * phase (a preamble some models write before their tool calls), which is thinking; and a
 * completed client tool call item (`function_call` with its arguments parsed, `custom_tool_call`
 * with its raw input) to `tool-call`. A call that did not complete (status `incomplete`, or
 * arguments that are not JSON) is never yielded. Items are correlated by `output_index`, never by
 * item id (some proxies rotate ids). `error` events and `response.failed` throw the SDK's
 * `APIError` without a status, as the SDK throws an error payload (see {@link streamFailure});
 * `response.completed` and `response.incomplete` end the response; any unknown event maps to
 * nothing.
 */
export function createStreamMapper(): StreamMapper {
  // Which part the last delta of each lane belonged to, to put a paragraph break between parts.
  let thinkingItem = -1
  let thinkingPart = -1
  let textItem = -1
  let hasThinking = false
  let hasText = false
  /** Output indices of the messages in the `commentary` phase. */
  const commentary = new Set<number>()
  /** Name of a function call whose arguments were not valid JSON (a response cut short leaves one). */
  let brokenCall: string | undefined
  /** Completed output items by `output_index`, for a terminal response that lacks `output`. */
  const doneItems: unknown[] = []
  const yielded = new Set<string>()
  const started: CallRef[] = []
  const annotations: StreamedAnnotation[] = []
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
        return commentary.has(event.output_index)
          ? thinking(event.output_index, event.content_index, event.delta)
          : answer(event.output_index, event.delta)
      case 'response.reasoning_summary_text.delta':
        return thinking(event.output_index, event.summary_index, event.delta)
      case 'response.reasoning_text.delta':
        // Raw reasoning parts are numbered apart from summary parts.
        return thinking(event.output_index, -2 - event.content_index, event.delta)
      case 'response.refusal.delta':
        return answer(event.output_index, event.delta)
      case 'response.output_text.annotation.added':
        annotations.push({
          outputIndex: event.output_index,
          contentIndex: event.content_index,
          annotation: event.annotation,
        })
        return undefined
      case 'response.output_item.added': {
        const item = event.item
        if (item.type === 'message' && item.phase === 'commentary')
          commentary.add(event.output_index)
        const call = clientCall(item)
        if (call !== undefined) started.push(call)
        return undefined
      }
      case 'response.output_item.done':
        doneItems[event.output_index] = event.item
        return toolCall(event.item)
      case 'response.completed':
      case 'response.incomplete':
        terminal = event.response
        return END
      case 'response.failed': {
        const error = event.response.error
        throw streamFailure(error?.code, error?.message ?? 'the response failed')
      }
      case 'error':
        throw streamFailure(event.code, event.message, event.param)
      default:
        return undefined
    }
  }

  /** The `tool-call` of a completed client tool call item; nothing for any other item. */
  function toolCall(item: ResponseOutputItem): Delta | undefined {
    if (item.type !== 'function_call' && item.type !== 'custom_tool_call') return undefined
    if ('status' in item && item.status === 'incomplete') return undefined
    const input: unknown =
      item.type === 'function_call' ? parseArguments(item.arguments) : item.input
    if (input === invalid) {
      brokenCall ??= item.name
      return undefined
    }
    yielded.add(item.call_id)
    return { type: 'tool-call', call: { id: item.call_id, name: item.name, input } }
  }

  function finish(): Finish | undefined {
    if (terminal === undefined) return undefined
    return mapFinish(terminal, { doneItems, yielded, started, annotations, brokenCall })
  }

  return { map, finish, serviceTier: () => terminal?.service_tier ?? undefined }
}

/**
 * A failure the stream reported (an `error` event in its documented flat form, or a failed
 * response), in the one shape every in-stream failure takes: the SDK's `APIError` without a
 * status, its body holding the `code`, as for the nested form of the `error` event (see
 * `parseEvent`). The adapter maps it by its code, and may recover from it before any output.
 */
export function streamFailure(
  code: string | null | undefined,
  message: string,
  param: string | null = null,
): APIError {
  return new APIError(undefined, { code: code ?? null, message, param }, message, undefined)
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
