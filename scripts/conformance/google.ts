/**
 * Conformance checker for recorded Gemini streams (`streamGenerateContent?alt=sse`): each
 * `.chunks.txt` recording, and each non-streaming `.json` response as a one-chunk stream, is
 * replayed through `gemini()` and the streamed thinking, text, tool calls and stop reason are
 * compared with what the recording holds. A recorded error body is replayed with its status.
 */
import type { StopReason } from '../../src/core/conversation.ts'
import { isThinkwireError } from '../../src/core/errors.ts'
import { gemini } from '../../src/providers/gemini/index.ts'
import { replayFetch } from '../../test/helpers/replay-fetch.ts'
import {
  chunkLines,
  compare,
  field,
  replayBody,
  type CheckRow,
  type Outcome,
  type RecordingFile,
} from '../conformance.ts'

const make = (model: string) => (fetch: typeof globalThis.fetch) =>
  gemini({ apiKey: 'conformance-key', model, fetch, baseURL: 'https://gemini.conformance' })

/** Checks every recording in the folder. */
export async function check(files: RecordingFile[]): Promise<CheckRow[]> {
  const rows: CheckRow[] = []
  for (const file of files) {
    const parsed = file.name.endsWith('.chunks.txt')
      ? chunkLines(file.text)
      : [JSON.parse(file.text) as unknown]
    const error = field(parsed[0], 'error')
    if (error !== undefined) {
      rows.push(await checkError(file.name, file.text, error))
      continue
    }
    const model = modelOf(parsed)
    const body = parsed.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join('')
    const { outcome } = await replayBody(body, make(model))
    rows.push(compare(file.name, expectedOf(parsed), outcome, `model ${model}`))
  }
  return rows
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
  const expected: Outcome = {
    ok: false,
    kind: status === 429 ? 'rate-limit' : 'server',
    retryable: true,
  }
  return compare(name, expected, actual, `HTTP ${status}`)
}

function modelOf(chunks: unknown[]): string {
  const version = chunks.map((c) => field(c, 'modelVersion')).find((v) => typeof v === 'string')
  return typeof version === 'string' ? version : 'gemini-3-flash-preview'
}

/** What the recording holds, read independently of the adapter. */
function expectedOf(chunks: unknown[]): Outcome {
  let thinking = ''
  let text = ''
  let finish: string | undefined
  const calls: { name: string; input: unknown }[] = []
  let streamed: { name: string; values: Map<string, unknown> } | undefined
  const closeStreamed = () => {
    if (streamed === undefined) return
    calls.push({ name: streamed.name, input: build(streamed.values) })
    streamed = undefined
  }
  for (const chunk of chunks) {
    const candidate = (field(chunk, 'candidates') as unknown[] | undefined)?.[0]
    const parts = field(field(candidate, 'content'), 'parts')
    for (const part of Array.isArray(parts) ? parts : []) {
      const call = field(part, 'functionCall')
      if (call !== undefined) {
        const name = field(call, 'name')
        if (typeof name === 'string') {
          closeStreamed()
          if (field(call, 'willContinue') === true) streamed = { name, values: new Map() }
          else calls.push({ name, input: field(call, 'args') ?? {} })
        } else if (streamed !== undefined) {
          for (const arg of (field(call, 'partialArgs') as unknown[] | undefined) ?? []) {
            const path = String(field(arg, 'jsonPath'))
            const value =
              field(arg, 'stringValue') ?? field(arg, 'numberValue') ?? field(arg, 'boolValue')
            const before = streamed.values.get(path)
            streamed.values.set(
              path,
              typeof value === 'string' && typeof before === 'string' ? before + value : value,
            )
          }
          if (field(call, 'willContinue') !== true) closeStreamed()
        }
        continue
      }
      const value = field(part, 'text')
      if (typeof value !== 'string') continue
      if (field(part, 'thought') === true) thinking += value
      else text += value
    }
    const reason = field(candidate, 'finishReason')
    if (typeof reason === 'string') finish = reason
  }
  closeStreamed()
  const stopReason: StopReason =
    finish === 'MAX_TOKENS'
      ? 'length'
      : finish === 'SAFETY' || finish === 'RECITATION'
        ? 'refusal'
        : calls.length > 0
          ? 'tool-calls'
          : 'stop'
  return { ok: true, thinking, text, toolCalls: calls, stopReason }
}

/** Arguments from `$.a.b[0]`-style paths and their values. */
function build(values: Map<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {}
  for (const [path, value] of values) {
    const keys = [...path.slice(1).matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)].map((m) =>
      m[2] === undefined ? m[1]! : Number(m[2]),
    )
    let node: Record<string | number, unknown> = root
    keys.forEach((key, i) => {
      if (i === keys.length - 1) node[key] = value
      else {
        node[key] ??= typeof keys[i + 1] === 'number' ? [] : {}
        node = node[key] as Record<string | number, unknown>
      }
    })
  }
  return root
}
