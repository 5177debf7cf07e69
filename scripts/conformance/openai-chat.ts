/**
 * Conformance checker for recorded Chat Completions streams from OpenAI and compatible servers:
 * each recording is replayed through `openaiCompatible()` (with the preset of the server that
 * made it, when there is one) and the streamed thinking, text, tool calls and stop reason are
 * compared with what the recording holds. `.chunks.txt` files hold one chunk per line (replayed as
 * `data:` lines plus `[DONE]`); `.sse` files are SSE bodies as the server sent them, replayed as
 * they are; `.json` files are not streams and are skipped.
 */
import type { StopReason } from '../../src/core/conversation.ts'
import { kindFromStatus } from '../../src/kit/http-error.ts'
import {
  openaiCompatible,
  presets,
  type CompatiblePreset,
} from '../../src/providers/openai-compatible/index.ts'
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

const generic: CompatiblePreset = {
  provider: 'openai-chat',
  baseURL: 'https://chat.conformance/v1',
  reasoning: { thinkTags: 'off' },
}

/** The preset of the server that recorded `name`, by its file-name prefix. */
function presetFor(name: string): CompatiblePreset {
  const prefix = name.split('-')[0] ?? ''
  return prefix in presets ? presets[prefix as keyof typeof presets] : generic
}

/** The chunks of a recording and the body to replay, or why it cannot be replayed. */
function readRecording(file: RecordingFile): { chunks: unknown[]; body: string } | string {
  if (file.name.endsWith('.sse')) return { chunks: sseEvents(file.text), body: file.text }
  if (file.name.endsWith('.chunks.txt')) {
    const chunks = chunkLines(file.text)
    return { chunks, body: toSSE(chunks) }
  }
  return 'not a stream (a whole response or an error body); skipped'
}

/** Checks every streaming recording in the folder. */
export async function check(files: RecordingFile[]): Promise<CheckRow[]> {
  const rows: CheckRow[] = []
  for (const file of files) {
    const recording = readRecording(file)
    if (typeof recording === 'string') {
      rows.push(skipped(file.name, recording))
      continue
    }
    const { chunks, body } = recording
    const preset = presetFor(file.name)
    const model = String(
      chunks.map((c) => field(c, 'model')).find((m) => typeof m === 'string' && m !== '') ??
        'model',
    )
    const { outcome } = await replayBody(body, (fetch) =>
      openaiCompatible({ ...preset, model, apiKey: 'conformance-key', fetch }),
    )
    rows.push(compare(file.name, expectedOf(chunks), outcome, `${preset.provider} ${model}`))
  }
  return rows
}

function toSSE(chunks: unknown[]): string {
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n'
}

type Call = { id: string; name: string; args: string }

/**
 * What the recording holds, read independently of the adapter: the thinking and text deltas, the
 * tool calls (by index, a new id at a used index starting another call), the stop reason, or the
 * error a chunk carries. A call whose arguments the stop cut off (the output limit, a content
 * filter or a refusal ended the turn while they were not yet JSON) is not a call; arguments that
 * are not JSON otherwise are passed on as their text.
 */
function expectedOf(chunks: unknown[]): Outcome {
  let thinking = ''
  let text = ''
  let refused = false
  let finish: string | undefined
  const calls: Call[] = []
  const byIndex = new Map<unknown, Call>()
  for (const chunk of chunks) {
    const error = field(chunk, 'error')
    if (error !== undefined && error !== null) {
      const code = field(error, 'code')
      return { ok: false, kind: typeof code === 'number' ? kindFromStatus(code) : 'server' }
    }
    const choice = (field(chunk, 'choices') as unknown[] | undefined)?.[0]
    const delta = field(choice, 'delta')
    const reasoning = field(delta, 'reasoning_content') ?? field(delta, 'reasoning')
    if (typeof reasoning === 'string') thinking += reasoning
    const content = field(delta, 'content')
    if (typeof content === 'string') text += content
    for (const block of Array.isArray(content) ? content : []) {
      if (field(block, 'type') === 'text') text += String(field(block, 'text'))
      for (const piece of (field(block, 'thinking') as unknown[] | undefined) ?? [])
        thinking += String(field(piece, 'text'))
    }
    const refusal = field(delta, 'refusal')
    if (typeof refusal === 'string' && refusal !== '') {
      refused = true
      text += refusal
    }
    for (const fragment of (field(delta, 'tool_calls') as unknown[] | undefined) ?? []) {
      const index = field(fragment, 'index') ?? calls.length - 1
      const rawId = field(fragment, 'id')
      const id = typeof rawId === 'string' ? rawId : ''
      let call = byIndex.get(index)
      if (call === undefined || (id !== '' && call.id !== '' && id !== call.id)) {
        call = { id, name: '', args: '' }
        calls.push(call)
        byIndex.set(index, call)
      }
      if (call.id === '') call.id = id
      const fn = field(fragment, 'function')
      const name = field(fn, 'name')
      if (typeof name === 'string' && call.name === '') call.name = name
      const args = field(fn, 'arguments')
      call.args += typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args)
    }
    const reason = field(choice, 'finish_reason')
    if (typeof reason === 'string') finish = reason
  }
  const cut = finish === 'length' || finish === 'content_filter' || refused
  const last = calls.at(-1)
  if (cut && last !== undefined && parsed(last.args) === undefined) calls.pop()
  const toolCalls = calls.map((c) => ({
    name: c.name,
    input: c.args.trim() === '' ? {} : (parsed(c.args) ?? c.args),
  }))
  const stopReason: StopReason =
    finish === 'length'
      ? 'length'
      : finish === 'content_filter' || refused
        ? 'refusal'
        : toolCalls.length > 0
          ? 'tool-calls'
          : 'stop'
  return { ok: true, thinking, text, toolCalls, stopReason }
}

/** The JSON value of `text`, or undefined when it is not JSON. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}
