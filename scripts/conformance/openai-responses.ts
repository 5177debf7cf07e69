/**
 * Checks recorded OpenAI Responses streams against `openai()`. `.chunks.txt` files hold one event
 * per line (data only): each gets its `event:` line back, as the API sends it, and a file that
 * holds several responses back to back is cut at each `response.created`. `.sse` files (the
 * repository's own fixtures) are an SSE body as the API sends it, replayed as they are. `.json`
 * files hold a whole (non-streaming) response: it is streamed the way the API would stream it, and
 * the turn's items must equal its `output`; a `.json` file that is not a response is skipped. What
 * a recording should come to is read from the recording itself, independently of the adapter; and
 * the turn's items must hold no client tool call that was not streamed (it could not be answered,
 * so it could not be replayed).
 */
import { isDeepStrictEqual } from 'node:util'
import { openai } from '../../src/providers/openai/index.ts'
import type { Event } from '../../src/core/events.ts'
import {
  chunkLines,
  compare,
  skipped,
  field,
  replayBody,
  sseEvents,
  sseFrames,
  type CheckRow,
  type Outcome,
  type RecordingFile,
} from '../conformance.ts'

/** Error codes by the kind they mean, and whether retrying can help. */
function kindOfCode(code: unknown, message: unknown): { kind: string; retryable?: boolean } {
  switch (code) {
    case 'insufficient_quota':
      return { kind: 'rate-limit', retryable: false }
    case 'rate_limit_exceeded':
      return { kind: 'rate-limit' }
    case 'context_length_exceeded':
      return { kind: 'context-length' }
    case 'invalid_prompt':
      return {
        kind: /policy|flagged|safety/i.test(String(message)) ? 'content-filter' : 'invalid-request',
      }
    default:
      return { kind: 'server' }
  }
}

/** Joins the non-empty texts of each part with a blank line, parts in the order they began. */
function joinParts(parts: Map<string, string>): string {
  return [...parts.values()].filter((text) => text !== '').join('\n\n')
}

/** The input of a completed client tool call item, or undefined when it is not one or is unfinished. */
function callInput(item: unknown): { input: unknown } | undefined {
  const type = field(item, 'type')
  if (type !== 'function_call' && type !== 'custom_tool_call') return undefined
  if (field(item, 'status') === 'incomplete') return undefined
  if (type === 'custom_tool_call') {
    const input = field(item, 'input')
    return typeof input === 'string' ? { input } : undefined
  }
  const args = String(field(item, 'arguments'))
  if (args.trim() === '') return { input: {} }
  try {
    return { input: JSON.parse(args) as unknown }
  } catch {
    return undefined
  }
}

const isClientCall = (item: unknown): boolean =>
  field(item, 'type') === 'function_call' || field(item, 'type') === 'custom_tool_call'

/**
 * What one recorded response should stream: summed from its deltas, or the error it ends in. The
 * text of a message in the `commentary` phase is thinking; a client tool call (function or custom)
 * counts once its item is done and complete. A call the response left unfinished is not a call
 * when the response says it is incomplete, and a server error when it says it completed.
 */
function expectedOf(events: readonly unknown[]): Outcome {
  const thinking = new Map<string, string>()
  const text = new Map<string, string>()
  const add = (parts: Map<string, string>, key: string, delta: unknown) =>
    parts.set(key, (parts.get(key) ?? '') + String(delta))
  const toolCalls: { name: string; input: unknown }[] = []
  const streamed = new Set<unknown>()
  const commentary = new Set<string>()
  for (const event of events) {
    const type = field(event, 'type')
    const item = String(field(event, 'output_index'))
    if (type === 'response.reasoning_summary_text.delta')
      add(thinking, `${item}/s${String(field(event, 'summary_index'))}`, field(event, 'delta'))
    else if (type === 'response.reasoning_text.delta')
      add(thinking, `${item}/c${String(field(event, 'content_index'))}`, field(event, 'delta'))
    else if (type === 'response.output_text.delta' && commentary.has(item))
      add(thinking, `${item}/t${String(field(event, 'content_index'))}`, field(event, 'delta'))
    else if (type === 'response.output_text.delta' || type === 'response.refusal.delta')
      add(text, item, field(event, 'delta'))
    else if (type === 'response.output_item.added') {
      const added = field(event, 'item')
      if (field(added, 'type') === 'message' && field(added, 'phase') === 'commentary')
        commentary.add(item)
    } else if (type === 'response.output_item.done') {
      const done = field(event, 'item')
      const call = callInput(done)
      if (call !== undefined) {
        streamed.add(field(done, 'call_id'))
        toolCalls.push({ name: String(field(done, 'name')), input: call.input })
      }
    } else if (type === 'error') {
      const error = field(event, 'error') ?? event
      return { ok: false, ...kindOfCode(field(error, 'code'), field(error, 'message')) }
    } else if (type === 'response.failed') {
      const error = field(field(event, 'response'), 'error')
      return { ok: false, ...kindOfCode(field(error, 'code'), field(error, 'message')) }
    } else if (type === 'response.completed' || type === 'response.incomplete') {
      const response = field(event, 'response')
      const reason = field(field(response, 'incomplete_details'), 'reason')
      const output = field(response, 'output')
      const items: unknown[] = Array.isArray(output) ? output : []
      const unfinished = items.some((o) => isClientCall(o) && !streamed.has(field(o, 'call_id')))
      if (type === 'response.completed' && unfinished) return { ok: false, kind: 'server' }
      const refused = items.some((o) => {
        const content = field(o, 'content')
        return Array.isArray(content) && content.some((p) => field(p, 'type') === 'refusal')
      })
      const stopReason =
        type === 'response.incomplete'
          ? reason === 'max_output_tokens'
            ? 'length'
            : reason === 'content_filter'
              ? 'refusal'
              : 'other'
          : toolCalls.length > 0
            ? 'tool-calls'
            : refused
              ? 'refusal'
              : 'stop'
      return {
        ok: true,
        thinking: joinParts(thinking),
        text: joinParts(text),
        toolCalls,
        stopReason,
      }
    }
  }
  return { ok: false, kind: 'network' }
}

/** Cuts a recording at each `response.created`: one list of events per response. */
function responses(events: readonly unknown[]): unknown[][] {
  const out: unknown[][] = []
  for (const event of events) {
    if (field(event, 'type') === 'response.created' || out.length === 0) out.push([])
    out.at(-1)!.push(event)
  }
  return out
}

/** The stream the API sends for a whole response: each item added, filled, done, then completed. */
function streamOfResponse(response: unknown): unknown[] {
  const output = field(response, 'output')
  const items: unknown[] = Array.isArray(output) ? output : []
  let seq = 0
  const events: unknown[] = []
  const push = (event: Record<string, unknown>) => events.push({ ...event, sequence_number: seq++ })
  push({
    type: 'response.created',
    response: { ...(response as object), status: 'in_progress', output: [], usage: null },
  })
  items.forEach((item, index) => {
    const type = field(item, 'type')
    const summary = field(item, 'summary')
    const content = field(item, 'content')
    if (type === 'reasoning') {
      push({
        type: 'response.output_item.added',
        output_index: index,
        item: { ...(item as object), summary: [] },
      })
      if (Array.isArray(summary))
        summary.forEach((part, summaryIndex) => {
          push({
            type: 'response.reasoning_summary_part.added',
            output_index: index,
            summary_index: summaryIndex,
            part: { type: 'summary_text', text: '' },
          })
          push({
            type: 'response.reasoning_summary_text.delta',
            output_index: index,
            summary_index: summaryIndex,
            delta: field(part, 'text'),
          })
          push({
            type: 'response.reasoning_summary_part.done',
            output_index: index,
            summary_index: summaryIndex,
            part,
          })
        })
    } else if (type === 'message' && Array.isArray(content)) {
      push({
        type: 'response.output_item.added',
        output_index: index,
        item: { ...(item as object), content: [] },
      })
      content.forEach((part, contentIndex) => {
        const text = field(part, 'type') === 'output_text'
        push({
          type: 'response.content_part.added',
          output_index: index,
          content_index: contentIndex,
          part: text ? { ...(part as object), text: '' } : { ...(part as object), refusal: '' },
        })
        push({
          type: text ? 'response.output_text.delta' : 'response.refusal.delta',
          output_index: index,
          content_index: contentIndex,
          delta: field(part, text ? 'text' : 'refusal'),
        })
        push({
          type: 'response.content_part.done',
          output_index: index,
          content_index: contentIndex,
          part,
        })
      })
    } else push({ type: 'response.output_item.added', output_index: index, item })
    push({ type: 'response.output_item.done', output_index: index, item })
  })
  push({ type: `response.${String(field(response, 'status'))}`, response })
  return events
}

const make = (fetch: typeof globalThis.fetch) =>
  openai({ apiKey: 'conformance-key', model: 'gpt-5.4', fetch })

/**
 * Whether the turn's items hold only client tool calls that were streamed (so each can be answered
 * and replayed); undefined when the stream failed.
 */
function callsReplayable(done: Extract<Event, { type: 'done' }> | undefined): boolean | undefined {
  if (done === undefined) return undefined
  const ids = new Set((done.turn.toolCalls ?? []).map((call) => call.id))
  return (done.turn.items?.data ?? []).every(
    (item) => !isClientCall(item) || ids.has(String(field(item, 'call_id'))),
  )
}

/** A row comparing a replay with its recording, also failing a turn whose items hold a call not streamed. */
async function replayRow(name: string, events: readonly unknown[], body: string, note?: string) {
  const { outcome, done } = await replayBody(body, make)
  const row = compare(name, expectedOf(events), outcome, note)
  if (callsReplayable(done) !== false) return { row, done }
  return {
    row: { ...row, ok: false, actual: `${row.actual}, ITEMS HOLD A CALL NOT STREAMED` },
    done,
  }
}

/** Checks every recording in the folder. */
export async function check(files: RecordingFile[]): Promise<CheckRow[]> {
  const rows: CheckRow[] = []
  for (const file of files) {
    if (file.name.endsWith('.chunks.txt')) {
      const all = responses(chunkLines(file.text))
      for (const [i, events] of all.entries()) {
        const name = all.length > 1 ? `${file.name}#${i + 1}` : file.name
        rows.push((await replayRow(name, events, sseFrames(events))).row)
      }
    } else if (file.name.endsWith('.sse')) {
      // An SSE body as the API sends it: replayed byte for byte, its expectation read from its events.
      rows.push((await replayRow(file.name, sseEvents(file.text), file.text)).row)
    } else if (file.name.endsWith('.json')) {
      const response = JSON.parse(file.text) as unknown
      if (field(response, 'object') !== 'response') {
        rows.push(
          skipped(
            file.name,
            'a JSON body that is not a response object (an error body, say) holds no stream',
            'not a response',
          ),
        )
        continue
      }
      const events = streamOfResponse(response)
      const note = 'streamed as the API would; items must equal output'
      const { row, done } = await replayRow(file.name, events, sseFrames(events), note)
      const same = isDeepStrictEqual(done?.turn.items?.data, field(response, 'output'))
      rows.push({
        ...row,
        ok: row.ok && same,
        actual: `${row.actual}${same ? ', items = output' : ', ITEMS DIFFER'}`,
      })
    } else {
      rows.push(skipped(file.name, undefined, 'no checker for this format'))
    }
  }
  return rows
}
