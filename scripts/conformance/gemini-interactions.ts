/**
 * Conformance checker for recorded Gemini Interactions streams (`POST /v1beta/interactions` with
 * `stream: true`): each `.sse` body (replayed byte for byte, as the API sent it), each
 * `.chunks.txt` recording (one event's JSON per line, framed here with its `event:` line), and each
 * non-streaming `.json` interaction (its `steps` sent as one `interaction.completed`) is replayed
 * through `geminiInteractions()`, and the streamed thinking, text, tool calls and stop reason are
 * compared with what the recording holds. A recorded error body is replayed with the status of its
 * code; an `error` event inside a stream is expected as the error of its code. Recordings of the
 * API's older event names (`content.start`, `interaction.start`, ...) are skipped: the adapter reads
 * the step events of the revision its SDK speaks.
 */
import type { StopReason } from '../../src/core/conversation.ts'
import { isThinkwireError } from '../../src/core/errors.ts'
import { geminiInteractions } from '../../src/providers/gemini/index.ts'
import { replayFetch } from '../../test/helpers/replay-fetch.ts'
import {
  chunkLines,
  compare,
  skipped,
  field,
  replayBody,
  sseEvents,
  type CheckRow,
  type Outcome,
  type RecordingFile,
} from '../conformance.ts'

const make = (model: string) => (fetch: typeof globalThis.fetch) =>
  geminiInteractions({
    apiKey: 'conformance-key',
    model,
    fetch,
    baseURL: 'https://conformance.test',
  })

/** A file read as a stream: its events and the body to replay, or why it cannot be used. */
type Recording = { events: unknown[]; body: string } | { error: unknown } | { skip: string }

/** The error codes of the Interactions API, by the HTTP status each stands for. */
const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  invalid_request: 400,
  failed_precondition: 400,
  parameter_unknown: 400,
  authentication: 401,
  payment_required: 402,
  permission_denied: 403,
  not_found: 404,
  model_not_found: 404,
  rate_limit_exceeded: 429,
  quota_exceeded: 429,
  api_error: 500,
  unavailable: 503,
  deadline_exceeded: 504,
}

/** Checks every recording in the folder. */
export async function check(files: RecordingFile[]): Promise<CheckRow[]> {
  const rows: CheckRow[] = []
  for (const file of files) {
    const recording = read(file)
    if ('skip' in recording) {
      rows.push(skipped(file.name, recording.skip))
      continue
    }
    if ('error' in recording) {
      rows.push(await checkError(file.name, file.text, recording.error))
      continue
    }
    const model = modelOf(recording.events)
    const { outcome } = await replayBody(recording.body, make(model))
    rows.push(compare(file.name, expectedOf(recording.events), outcome, `model ${model}`))
  }
  return rows
}

const frame = (event: unknown) =>
  `event: ${String(field(event, 'event_type'))}\ndata: ${JSON.stringify(event)}\n\n`

function read(file: RecordingFile): Recording {
  let events: unknown[]
  let body: string
  try {
    if (file.name.endsWith('.sse')) {
      events = sseEvents(file.text)
      body = file.text
    } else if (file.name.endsWith('.chunks.txt')) {
      events = chunkLines(file.text)
      body = events.map(frame).join('')
    } else {
      const value: unknown = JSON.parse(file.text)
      if (field(value, 'error') !== undefined) return { error: field(value, 'error') }
      if (!Array.isArray(field(value, 'steps')))
        return { skip: 'neither an interaction nor an error' }
      events = [{ event_type: 'interaction.completed', interaction: value }]
      body = events.map(frame).join('')
    }
  } catch (error) {
    return { skip: `not a stream of JSON events: ${String(error)}` }
  }
  if (events.length === 0) return { skip: 'no events in the body' }
  if (events.some((event) => String(field(event, 'event_type')).startsWith('content.')))
    return { skip: "the API's older content.* events, which the adapter does not read" }
  return { events, body }
}

async function checkError(name: string, text: string, error: unknown): Promise<CheckRow> {
  const status = statusOf(field(error, 'code'))
  const replay = replayFetch([
    { status, headers: { 'content-type': 'application/json' }, body: text },
  ])
  const adapter = make('gemini-3-flash-preview')(replay.fetch)
  let actual: Outcome = { ok: false, kind: 'none' }
  try {
    for await (const _ of adapter.stream({ turns: [{ role: 'user', content: 'x' }] })) void _
  } catch (thrown) {
    if (isThinkwireError(thrown))
      actual = { ok: false, kind: thrown.kind, retryable: thrown.retryable }
  }
  return compare(name, errorOf(status, field(error, 'code')), actual, `HTTP ${status}`)
}

function statusOf(code: unknown): number {
  if (typeof code === 'number') return code
  return STATUS_OF_CODE[String(code)] ?? 500
}

/** What an error of this HTTP status (or code) should come to. */
function errorOf(status: number, code?: unknown): Outcome {
  if (code === 'quota_exceeded') return { ok: false, kind: 'rate-limit', retryable: false }
  if (status === 429) return { ok: false, kind: 'rate-limit', retryable: true }
  if (status === 503) return { ok: false, kind: 'overloaded', retryable: true }
  if (status === 504) return { ok: false, kind: 'timeout', retryable: true }
  if (status === 401 || status === 403) return { ok: false, kind: 'auth', retryable: false }
  if (status >= 400 && status < 500) return { ok: false, kind: 'invalid-request', retryable: false }
  return { ok: false, kind: 'server', retryable: true }
}

function modelOf(events: unknown[]): string {
  for (const event of events) {
    const model = field(field(event, 'interaction'), 'model')
    if (typeof model === 'string') return model
  }
  return 'gemini-3-flash-preview'
}

/** A function call as the recording builds it. */
type Call = { name: string; start: unknown; fragments: string; stopped: boolean }

/**
 * What the recording holds, read independently of the adapter: the text of thought summaries and
 * of model output (what a step starts with, then its deltas), each function call's arguments from
 * its fragments (else what its step started with), and the final status. A call whose step never
 * stopped counts when the model ended its turn (`completed`, `requires_action`), and was cut off
 * otherwise.
 */
function expectedOf(events: unknown[]): Outcome {
  let thinking = ''
  let text = ''
  let status: string | undefined
  let completed = false
  const kinds = new Map<unknown, unknown>()
  const calls = new Map<unknown, Call>()
  const order: Call[] = []
  for (const event of events) {
    const type = field(event, 'event_type')
    const index = field(event, 'index')
    if (type === 'error') return errorOf(statusOf(field(field(event, 'error'), 'code')))
    if (type === 'step.start') {
      const step = field(event, 'step')
      kinds.set(index, field(step, 'type'))
      const items = field(step, field(step, 'type') === 'thought' ? 'summary' : 'content')
      for (const item of Array.isArray(items) ? items : []) {
        const value = field(item, 'text')
        if (typeof value !== 'string') continue
        if (field(step, 'type') === 'thought') thinking += value
        else if (field(step, 'type') === 'model_output') text += value
      }
      if (field(step, 'type') === 'function_call') {
        const call = {
          name: String(field(step, 'name')),
          start: field(step, 'arguments'),
          fragments: '',
          stopped: false,
        }
        calls.set(index, call)
        order.push(call)
      }
    } else if (type === 'step.delta') {
      const delta = field(event, 'delta')
      const kind = field(delta, 'type')
      if (kind === 'text' && kinds.get(index) === 'model_output')
        text += String(field(delta, 'text'))
      if (kind === 'thought_summary') {
        const value = field(field(delta, 'content'), 'text')
        if (typeof value === 'string') thinking += value
      }
      if (kind === 'arguments_delta') {
        const call = calls.get(index)
        if (call !== undefined) call.fragments += String(field(delta, 'arguments') ?? '')
      }
    } else if (type === 'step.stop') {
      const call = calls.get(index)
      if (call !== undefined) call.stopped = true
    } else if (type === 'interaction.status_update') {
      status = String(field(event, 'status'))
    } else if (type === 'interaction.completed') {
      status = String(field(field(event, 'interaction'), 'status'))
      completed = true
      break
    }
  }
  if (!completed) return { ok: false, kind: 'network', retryable: true }
  if (status === 'failed') return { ok: false, kind: 'server', retryable: true }
  const endsTurn = status === 'completed' || status === 'requires_action'
  const toolCalls: { name: string; input: unknown }[] = []
  for (const call of order) {
    if (!call.stopped && !endsTurn) continue
    let input: unknown = call.start ?? {}
    if (call.fragments !== '') {
      try {
        input = JSON.parse(call.fragments)
      } catch {
        if (endsTurn) return { ok: false, kind: 'invalid-output', retryable: false }
        continue
      }
    }
    toolCalls.push({ name: call.name, input })
  }
  const stopReason: StopReason =
    status === 'incomplete' || status === 'requires_continuation'
      ? 'length'
      : endsTurn && toolCalls.length > 0
        ? 'tool-calls'
        : status === 'completed'
          ? 'stop'
          : 'other'
  return { ok: true, thinking, text, toolCalls, stopReason }
}
