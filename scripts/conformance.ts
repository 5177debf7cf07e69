/**
 * `npm run conformance -- <folder>`: replays recorded provider streams through an adapter and
 * checks that what the adapter streams is what the recording holds.
 *
 * The folder's name picks the checker: `scripts/conformance/<folder-name>.ts` (for example
 * `../shared/conformance/anthropic` runs `scripts/conformance/anthropic.ts`), and the repository's
 * own fixture folders (`test/fixtures/<provider>`) name theirs by provider (`gemini` is checked by
 * `google.ts`, `openai` by `openai-responses.ts`, `openai-compatible` by `openai-chat.ts`). A
 * checker module exports one function:
 *
 * ```ts
 * export async function check(files: RecordingFile[]): Promise<CheckRow[]>
 * ```
 *
 * It gets every file of the folder (name and text) and returns one row per stream it replayed
 * (a file may hold several streams back to back, or none that the checker can use, in which case
 * it returns a row with `actual: 'skipped'` and a note saying why). Each row says what the
 * recording holds (`expected`), what the adapter did (`actual`), and whether they agree. Checkers
 * turn each recording into wire bytes, replay them through the real SDK with an injected `fetch`
 * ({@link replayBody}), and compare the streamed thinking, text and tool calls, or the error kind
 * for a recorded failure. This script prints the table and exits non-zero on any mismatch, and
 * also when the folder has no checker or none of its files could be checked.
 *
 * The helpers below are for checkers to import (`import { ... } from '../conformance.ts'`).
 */
import { createParser } from 'eventsource-parser'
import { readdir, readFile } from 'node:fs/promises'
import { basename, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import type { Adapter } from '../src/core/adapter.ts'
import type { Conversation } from '../src/core/conversation.ts'
import { isThinkwireError } from '../src/core/errors.ts'
import type { Event, ToolCall } from '../src/core/events.ts'
import { replayFetch } from '../test/helpers/replay-fetch.ts'

/** One file of the folder. */
export type RecordingFile = { name: string; text: string }

/** One checked stream. */
export type CheckRow = {
  /** File name, plus `#n` when the file holds several streams. */
  name: string
  /** What the recording holds, in brief. */
  expected: string
  /** What the adapter did, in brief. */
  actual: string
  ok: boolean
  note?: string | undefined
}

/** A checker module's shape. */
export type Checker = { check(files: RecordingFile[]): Promise<CheckRow[]> }

/** What a stream should come to, or came to. */
export type Outcome =
  | {
      ok: true
      thinking: string
      text: string
      toolCalls: { name: string; input: unknown }[]
      stopReason: string
    }
  | { ok: false; kind: string; retryable?: boolean | undefined }

/** The non-empty lines of a `.chunks.txt` file, parsed as JSON. */
export function chunkLines(text: string): unknown[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown)
}

/**
 * The events of an SSE body (a `.sse` fixture), each as its parsed JSON `data`: what a checker
 * reads its expectation from, as it reads a `.chunks.txt` file. `[DONE]` is left out.
 */
export function sseEvents(text: string): unknown[] {
  const events: unknown[] = []
  const parser = createParser({
    onEvent(message) {
      if (message.data.startsWith('[DONE]')) return
      events.push(JSON.parse(message.data) as unknown)
    },
  })
  parser.feed(text)
  parser.feed('\n\n')
  return events
}

/** `event: <type>` + `data: <json>` frames, the way the provider sends them. */
export function sseFrames(chunks: readonly unknown[]): string {
  return chunks
    .map((chunk) => `event: ${String(field(chunk, 'type'))}\ndata: ${JSON.stringify(chunk)}\n\n`)
    .join('')
}

/** A field of a JSON object, or undefined. */
export function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && key in value
    ? (value as Record<string, unknown>)[key]
    : undefined
}

const question: Conversation = { turns: [{ role: 'user', content: 'Replay the recording.' }] }

/**
 * Streams `body` through the adapter `make` builds around a replaying fetch, and sums up what
 * came out: the streamed thinking, text and tool calls (checked against the `done` turn), or the
 * error kind.
 */
export async function replayBody(
  body: string,
  make: (fetch: typeof globalThis.fetch) => Adapter,
): Promise<{ outcome: Outcome; done: Extract<Event, { type: 'done' }> | undefined }> {
  const replay = replayFetch([{ body, splitAt: [Math.floor(body.length / 3)] }])
  const adapter = make(replay.fetch)
  let thinking = ''
  let text = ''
  const toolCalls: ToolCall[] = []
  let done: Extract<Event, { type: 'done' }> | undefined
  try {
    for await (const event of adapter.stream(question)) {
      if (event.type === 'thinking') thinking += event.text
      else if (event.type === 'text') text += event.text
      else if (event.type === 'tool-call') toolCalls.push(event.call)
      else done = event
    }
  } catch (error) {
    if (!isThinkwireError(error)) throw error
    return { outcome: { ok: false, kind: error.kind, retryable: error.retryable }, done: undefined }
  }
  if (done === undefined) throw new Error('the stream ended without done')
  const turn = done.turn
  if (turn.text !== text || (turn.thinking ?? '') !== thinking)
    throw new Error('the done turn disagrees with the streamed deltas')
  return {
    outcome: {
      ok: true,
      thinking,
      text,
      toolCalls: toolCalls.map(({ name, input }) => ({ name, input })),
      stopReason: turn.stopReason,
    },
    done,
  }
}

/** A short, one-line description of an outcome, for the table. */
export function describe(outcome: Outcome): string {
  if (!outcome.ok)
    return `error ${outcome.kind}${outcome.retryable === false ? ' (not retryable)' : ''}`
  const parts = [`thinking ${outcome.thinking.length}c`, `text ${outcome.text.length}c`]
  if (outcome.toolCalls.length > 0)
    parts.push(`calls ${outcome.toolCalls.map((c) => c.name).join(',')}`)
  parts.push(outcome.stopReason)
  return parts.join(', ')
}

/** A row for a recording the checker does not read, and why (`expected` says what it is not). */
export function skipped(name: string, note: string | undefined, expected = '-'): CheckRow {
  return { name, expected, actual: 'skipped', ok: true, note }
}

/**
 * A row comparing two outcomes: equal when every field is equal (an error's `retryable` only when
 * the expected outcome names it).
 */
export function compare(name: string, expected: Outcome, actual: Outcome, note?: string): CheckRow {
  const ok =
    !expected.ok && !actual.ok
      ? expected.kind === actual.kind &&
        (expected.retryable === undefined || expected.retryable === actual.retryable)
      : isDeepStrictEqual(expected, actual)
  return { name, expected: describe(expected), actual: describe(actual), ok, note }
}

function printRows(rows: CheckRow[]): void {
  const headers = ['recording', 'expected', 'actual', 'result']
  const cells = rows.map((row) => [row.name, row.expected, row.actual, row.ok ? 'ok' : 'MISMATCH'])
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)))
  const line = (cols: string[]) =>
    cols
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()
  console.log(line(headers))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const [i, row] of rows.entries()) {
    console.log(line(cells[i]!))
    if (row.note !== undefined) console.log(`  ${row.note}`)
  }
}

/** The checker of each of the repository's fixture folders, by the folder's name. */
const CHECKER_OF: Readonly<Record<string, string>> = {
  gemini: 'google',
  openai: 'openai-responses',
  'openai-compatible': 'openai-chat',
}

/** What checking one folder came to: its rows, or why it could not be checked. */
export type FolderCheck =
  | { ok: true; checker: string; files: string[]; rows: CheckRow[] }
  | { ok: false; message: string }

/** Checks every recording of `folder` with the checker its name picks. */
export async function checkFolder(folder: string): Promise<FolderCheck> {
  const dir = resolve(folder)
  const name = CHECKER_OF[basename(dir)] ?? basename(dir)
  const modulePath = join(import.meta.dirname, 'conformance', `${name}.ts`)
  let checker: Checker
  try {
    checker = (await import(pathToFileURL(modulePath).href)) as Checker
  } catch (error) {
    return {
      ok: false,
      message: `no checker for '${name}' (looked for ${modulePath}): ${String(error)}`,
    }
  }
  const names = (await readdir(dir)).filter((f) => /\.(chunks\.txt|sse|json)$/.test(f)).toSorted()
  const files = await Promise.all(
    names.map(async (f) => ({ name: f, text: await readFile(join(dir, f), 'utf8') })),
  )
  return { ok: true, checker: name, files: names, rows: await checker.check(files) }
}

async function main(): Promise<number> {
  const folder = process.argv[2]
  if (folder === undefined) {
    console.error('usage: npm run conformance -- <folder>')
    return 2
  }
  const result = await checkFolder(folder)
  if (!result.ok) {
    console.error(result.message)
    return 2
  }
  const { rows } = result
  printRows(rows)
  const bad = rows.filter((row) => !row.ok).length
  const checked = rows.filter((row) => row.actual !== 'skipped').length
  console.log(`\n${rows.length - bad}/${rows.length} streams agree with their recording`)
  if (checked === 0) {
    console.error(`nothing in ${folder} was checked: no file holds a stream the checker reads`)
    return 1
  }
  return bad === 0 ? 0 : 1
}

// Not a top-level await: checkers import this module, and awaiting here would make each wait on
// the other.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void main().then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      console.error(error)
      process.exitCode = 2
    },
  )
}
