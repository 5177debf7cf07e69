/**
 * Conformance checker for recorded Gemini streams (`streamGenerateContent?alt=sse`): each
 * `.chunks.txt` recording, each `.sse` body (replayed byte for byte, as the API sent it), and each
 * non-streaming `.json` response as a one-chunk stream, is replayed through `gemini()` and the
 * streamed thinking, text, tool calls and stop reason are compared with what the recording holds.
 * A recorded error body is replayed with its status; an error sent inside a stream is expected
 * as the error of its code.
 */
import type { StopReason } from '../../src/core/conversation.ts'
import { isThinkwireError } from '../../src/core/errors.ts'
import { gemini } from '../../src/providers/gemini/index.ts'
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
  gemini({ apiKey: 'conformance-key', model, fetch, baseURL: 'https://gemini.conformance' })

/** A file read as a stream: its chunks and the body to replay, or why it cannot be used. */
type Recording = { chunks: unknown[]; body: string } | { skip: string }

/** Checks every recording in the folder. */
export async function check(files: RecordingFile[]): Promise<CheckRow[]> {
  const rows: CheckRow[] = []
  for (const file of files) {
    const recording = read(file)
    if ('skip' in recording) {
      rows.push(skipped(file.name, recording.skip))
      continue
    }
    const { chunks, body } = recording
    const error = field(chunks[0], 'error')
    if (error !== undefined && !file.name.endsWith('.sse')) {
      rows.push(await checkError(file.name, file.text, error))
      continue
    }
    const model = modelOf(chunks)
    const { outcome } = await replayBody(body, make(model))
    rows.push(compare(file.name, expectedOf(chunks), outcome, `model ${model}`))
  }
  return rows
}

function read(file: RecordingFile): Recording {
  try {
    if (file.name.endsWith('.sse')) {
      const chunks = sseEvents(file.text)
      return chunks.length === 0 ? { skip: 'no events in the body' } : { chunks, body: file.text }
    }
    const chunks = file.name.endsWith('.chunks.txt')
      ? chunkLines(file.text)
      : [JSON.parse(file.text) as unknown]
    const body = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join('')
    return { chunks, body }
  } catch (error) {
    return { skip: `not a stream of JSON chunks: ${String(error)}` }
  }
}

async function checkError(name: string, text: string, error: unknown): Promise<CheckRow> {
  const status = Number(field(error, 'code'))
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
  return compare(name, errorOf(status), actual, `HTTP ${status}`)
}

/** What an error of this HTTP status (or in-stream error code) should come to. */
function errorOf(status: number): Outcome {
  if (status === 429) return { ok: false, kind: 'rate-limit', retryable: true }
  if (status === 503) return { ok: false, kind: 'overloaded', retryable: true }
  if (status === 504) return { ok: false, kind: 'timeout', retryable: true }
  if (status === 401 || status === 403) return { ok: false, kind: 'auth', retryable: false }
  if (status >= 400 && status < 500) return { ok: false, kind: 'invalid-request', retryable: false }
  return { ok: false, kind: 'server', retryable: true }
}

function modelOf(chunks: unknown[]): string {
  const version = chunks.map((c) => field(c, 'modelVersion')).find((v) => typeof v === 'string')
  return typeof version === 'string' ? version : 'gemini-3-flash-preview'
}

/** Finish reasons of a filter: the turn is a refusal. */
const REFUSALS = [
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]
/** Finish reasons of a tool use that cannot be taken: the stream fails. */
const INVALID = ['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS']

/** A call whose arguments are streaming: its name, and the value and openness of each path. */
type Streamed = { name: string; values: Map<string, unknown>; open: Set<string> }

/**
 * What the recording holds, read independently of the adapter. A call whose arguments are still
 * streaming when the answer stops for any reason but `STOP` was cut off, and is not expected.
 */
function expectedOf(chunks: unknown[]): Outcome {
  let thinking = ''
  let text = ''
  let finish: string | undefined
  let blocked = false
  const calls: { name: string; input: unknown }[] = []
  let streamed: Streamed | undefined
  const closeStreamed = () => {
    if (streamed === undefined) return
    calls.push({ name: streamed.name, input: build(streamed.values) })
    streamed = undefined
  }
  for (const chunk of chunks) {
    const error = field(chunk, 'error')
    if (error !== undefined) return errorOf(Number(field(error, 'code')))
    if (typeof field(field(chunk, 'promptFeedback'), 'blockReason') === 'string') blocked = true
    const candidate = (field(chunk, 'candidates') as unknown[] | undefined)?.[0]
    const parts = field(field(candidate, 'content'), 'parts')
    for (const part of Array.isArray(parts) ? parts : []) {
      const call = field(part, 'functionCall')
      if (call !== undefined) {
        const name = field(call, 'name')
        if (typeof name === 'string') {
          closeStreamed()
          if (field(call, 'willContinue') === true)
            streamed = { name, values: new Map(), open: new Set() }
          else calls.push({ name, input: field(call, 'args') ?? {} })
        } else if (streamed !== undefined) {
          for (const arg of (field(call, 'partialArgs') as unknown[] | undefined) ?? [])
            applyArg(streamed, arg)
          if (field(call, 'willContinue') !== true) closeStreamed()
        }
        continue
      }
      const value = field(part, 'text')
      // Any part that says something ends a call still streaming; an empty text part does not.
      if (!(value === '' && isBareText(part))) closeStreamed()
      if (typeof value !== 'string') continue
      if (field(part, 'thought') === true) thinking += value
      else text += value
    }
    const reason = field(candidate, 'finishReason')
    if (typeof reason === 'string') finish = reason
    if (blocked || finish !== undefined) break
  }
  if (blocked) return { ok: true, thinking, text, toolCalls: calls, stopReason: 'refusal' }
  if (finish !== undefined && INVALID.includes(finish))
    return { ok: false, kind: 'invalid-output', retryable: false }
  if (finish === 'STOP') closeStreamed()
  const stopReason: StopReason =
    finish === 'MAX_TOKENS' || finish === 'CONTINUATION'
      ? 'length'
      : finish !== undefined && REFUSALS.includes(finish)
        ? 'refusal'
        : calls.length > 0
          ? 'tool-calls'
          : finish === 'STOP'
            ? 'stop'
            : 'other'
  return { ok: true, thinking, text, toolCalls: calls, stopReason }
}

/** A part with only `text` and, maybe, `thought`. */
function isBareText(part: unknown): boolean {
  return typeof part === 'object' && part !== null && Object.keys(part).every(isTextKey)
}
const isTextKey = (key: string) => key === 'text' || key === 'thought'

/** One `partialArgs` fragment: a string goes on from the fragment before it that said so. */
function applyArg(streamed: Streamed, arg: unknown): void {
  const path = String(field(arg, 'jsonPath'))
  const piece = field(arg, 'stringValue')
  let value: unknown
  if (typeof piece === 'string') {
    const before = streamed.open.has(path) ? streamed.values.get(path) : undefined
    value = (typeof before === 'string' ? before : '') + piece
  } else if (field(arg, 'numberValue') !== undefined) value = field(arg, 'numberValue')
  else if (field(arg, 'boolValue') !== undefined) value = field(arg, 'boolValue')
  else if (field(arg, 'nullValue') !== undefined) value = null
  else return
  streamed.values.set(path, value)
  if (field(arg, 'willContinue') === true) streamed.open.add(path)
  else streamed.open.delete(path)
}

/**
 * Arguments from `$.a.b[0]['c']`-style paths and their values, as JSON would hold them: every key
 * an own field (defined, not assigned, so `__proto__` is a name like any other).
 */
function build(values: Map<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {}
  for (const [path, value] of values) {
    const keys = [
      ...path.slice(1).matchAll(/\.([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/g),
    ].map((m) => (m[2] === undefined ? (m[1] ?? m[3] ?? m[4] ?? '') : Number(m[2])))
    let node: Record<string | number, unknown> = root
    keys.forEach((key, i) => {
      const own = Object.hasOwn(node, key) ? node[key] : undefined
      const next =
        i === keys.length - 1 ? value : (own ?? (typeof keys[i + 1] === 'number' ? [] : {}))
      Object.defineProperty(node, key, {
        value: next,
        enumerable: true,
        writable: true,
        configurable: true,
      })
      node = next as Record<string | number, unknown>
    })
  }
  return root
}
