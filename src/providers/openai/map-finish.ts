import type { Response, ResponseUsage } from 'openai/resources/responses/responses'
import type { StopDetails, StopReason, Usage } from '../../core/conversation.ts'
import { ThinkwireError } from '../../core/errors.ts'
import type { Finish } from '../../kit/guard-stream.ts'
import { isRecord } from '../../kit/json.ts'
import { CLIENT_RUN_CALLS } from './encode-input.ts'
import { collectSources, type StreamedAnnotation } from './map-sources.ts'

/** A client tool call (one the app runs and answers): its call id and tool name. */
export type CallRef = { id: string; name: string }

/** What the stream mapper saw besides the deltas, which the finish record is built from. */
export type StreamRecord = {
  /** Completed output items by `output_index`, for a terminal response that lacks `output`. */
  doneItems: readonly unknown[]
  /** Call ids of the client tool calls yielded as `tool-call` events. */
  yielded: ReadonlySet<string>
  /** Client tool calls as they began (`output_item.added`), complete or not. */
  started: readonly CallRef[]
  /** Annotations announced while the text streamed. */
  annotations: readonly StreamedAnnotation[]
  /** A function call whose arguments came whole but were not JSON, for the error that names it. */
  brokenCall?: string | undefined
}

/**
 * The finish record of a finished response: its usage, stop reason, stop details and sources, and
 * as items the response's `output` as the provider sent it (the completed items, so
 * `encrypted_content` is whole), or, when the terminal event carries no `output`, the completed
 * items in `output_index` order.
 *
 * A client tool call that was not yielded (cut off by the output limit or the content filter, so
 * its arguments are unfinished) is left out of the items, because a replayed call needs its
 * output and its output needs a call that was run, and it is named in a warning. A response that
 * says it completed has no business holding one: that fails as a server error.
 */
export function mapFinish(response: Response, record: StreamRecord): Finish {
  const output: readonly unknown[] =
    Array.isArray(response.output) && response.output.length > 0
      ? response.output
      : record.doneItems.filter((item) => item !== undefined)
  const items = output.filter((item) => {
    const call = clientCall(item)
    return call === undefined || record.yielded.has(call.id)
  })
  const dropped = droppedCalls(output, record)
  if (dropped.length > 0 && response.status !== 'incomplete') throw unfinishedCall(record, dropped)
  const stopReason = mapStopReason(response, items)
  const finish: Finish = { usage: mapUsage(response.usage), stopReason, items }
  const stopDetails = stopDetailsOf(response, items, stopReason)
  if (stopDetails !== undefined) finish.stopDetails = stopDetails
  const sources = collectSources(items, record.annotations, record.doneItems)
  if (sources !== undefined) finish.sources = sources
  const why = cutBy(response)
  const warnings = dropped.map((call) => `tool call ${call.id} (${call.name}) dropped: ${why}`)
  for (const item of items) {
    if (!isRecord(item) || typeof item['type'] !== 'string' || !CLIENT_RUN_CALLS.has(item['type']))
      continue
    warnings.push(
      `${item['type']} ${String(item['call_id'])} kept in items only: nothing here runs the API's client-run tools, and later requests leave it out`,
    )
  }
  if (warnings.length > 0) finish.warnings = warnings
  return finish
}

/** Why the response ended, as our stop reason. */
export function mapStopReason(response: Response, output: readonly unknown[]): StopReason {
  if (response.status === 'incomplete') {
    const reason = response.incomplete_details?.reason
    if (reason === 'max_output_tokens') return 'length'
    if (reason === 'content_filter') return 'refusal'
    return 'other'
  }
  if (output.some((item) => clientCall(item) !== undefined)) return 'tool-calls'
  if (output.some((item) => refusalsOf(item).length > 0)) return 'refusal'
  return response.status === 'completed' || response.status === undefined ? 'stop' : 'other'
}

/**
 * What a refusal says about itself: the content filter's stop (`category: 'content_filter'`) or
 * the model's refusal (`category: 'refusal'`), with the refusal text the model wrote, if any.
 */
function stopDetailsOf(
  response: Response,
  items: readonly unknown[],
  stopReason: StopReason,
): StopDetails | undefined {
  if (stopReason !== 'refusal') return undefined
  const filtered = response.incomplete_details?.reason === 'content_filter'
  const details: StopDetails = { category: filtered ? 'content_filter' : 'refusal' }
  const explanation = items.flatMap(refusalsOf).join('\n\n')
  if (explanation !== '') details.explanation = explanation
  return details
}

/** The words for why an incomplete response cut a call short. */
function cutBy(response: Response): string {
  switch (response.incomplete_details?.reason) {
    case 'max_output_tokens':
      return 'it was cut off by the output limit (max_output_tokens)'
    case 'content_filter':
      return 'it was cut off by the content filter'
    default:
      return 'the response ended before it was complete'
  }
}

/**
 * The client tool calls that began or are in the output but were not yielded, each once, in the
 * order they appear.
 */
function droppedCalls(output: readonly unknown[], record: StreamRecord): CallRef[] {
  const out: CallRef[] = []
  const named = new Set<string>(record.yielded)
  for (const call of [...output.map(clientCall), ...record.started]) {
    if (call === undefined || named.has(call.id)) continue
    named.add(call.id)
    out.push(call)
  }
  return out
}

function unfinishedCall(record: StreamRecord, dropped: readonly CallRef[]): ThinkwireError {
  const message =
    record.brokenCall === undefined
      ? `openai: tool call ${dropped[0]!.id} (${dropped[0]!.name}) never completed in a completed response`
      : `openai: the arguments of function call '${record.brokenCall}' are not valid JSON`
  return new ThinkwireError({ kind: 'server', message, provider: 'openai' })
}

/**
 * The call id and name of a client tool call item (`function_call`, `custom_tool_call`): the items
 * the app answers with an output. Server tool items (`web_search_call`, ...) are not among them.
 */
export function clientCall(item: unknown): CallRef | undefined {
  if (!isRecord(item)) return undefined
  const { type, call_id: id, name } = item
  if (type !== 'function_call' && type !== 'custom_tool_call') return undefined
  return typeof id === 'string' && typeof name === 'string' ? { id, name } : undefined
}

/** The refusal texts of a message item. */
function refusalsOf(item: unknown): string[] {
  if (!isRecord(item) || item['type'] !== 'message' || !Array.isArray(item['content'])) return []
  return item['content'].flatMap((part: unknown) =>
    isRecord(part) && part['type'] === 'refusal' && typeof part['refusal'] === 'string'
      ? [part['refusal']]
      : [],
  )
}

/** Responses usage as ours; absent usage counts as zero. */
export function mapUsage(usage: ResponseUsage | null | undefined): Usage {
  if (usage === null || usage === undefined) return { inputTokens: 0, outputTokens: 0 }
  const out: Usage = { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens }
  const reasoning = usage.output_tokens_details?.reasoning_tokens
  if (typeof reasoning === 'number') out.reasoningTokens = reasoning
  const cached = usage.input_tokens_details?.cached_tokens
  if (typeof cached === 'number') out.cacheReadTokens = cached
  const written = usage.input_tokens_details?.cache_write_tokens
  if (typeof written === 'number') out.cacheWriteTokens = written
  return out
}
