/**
 * Conformance checker for recorded Chat Completions streams from OpenAI and compatible servers:
 * each recording is replayed through `openaiCompatible()` (with the preset of the server that
 * made it, when there is one) and the streamed thinking, text, tool calls and stop reason are
 * compared with what the recording holds.
 */
import type { StopReason } from '../../src/core/conversation.ts'
import {
  openaiCompatible,
  presets,
  type CompatiblePreset,
} from '../../src/providers/openai-compatible/index.ts'
import {
  chunkLines,
  compare,
  field,
  replayBody,
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

/** Checks every streaming recording in the folder. */
export async function check(files: RecordingFile[]): Promise<CheckRow[]> {
  const rows: CheckRow[] = []
  for (const file of files) {
    if (file.name.endsWith('.json')) {
      rows.push({
        name: file.name,
        expected: '-',
        actual: '-',
        ok: true,
        note: 'not a stream; skipped',
      })
      continue
    }
    const body = file.name.endsWith('.sse') ? file.text : toSSE(chunkLines(file.text))
    const chunks = parseSSE(body)
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

function parseSSE(body: string): unknown[] {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data:') && !line.includes('[DONE]'))
    .map((line) => JSON.parse(line.slice(5)) as unknown)
}

/** What the recording holds, read independently of the adapter. */
function expectedOf(chunks: unknown[]): Outcome {
  let thinking = ''
  let text = ''
  let finish: string | undefined
  const calls = new Map<number, { name: string; args: string }>()
  for (const chunk of chunks) {
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
    for (const fragment of (field(delta, 'tool_calls') as unknown[] | undefined) ?? []) {
      const index = Number(field(fragment, 'index') ?? calls.size - 1)
      const call = calls.get(index) ?? { name: '', args: '' }
      const fn = field(fragment, 'function')
      const name = field(fn, 'name')
      if (typeof name === 'string' && call.name === '') call.name = name
      call.args += String(field(fn, 'arguments') ?? '')
      calls.set(index, call)
    }
    const reason = field(choice, 'finish_reason')
    if (typeof reason === 'string') finish = reason
  }
  const toolCalls = [...calls.values()].map((c) => ({
    name: c.name,
    input: c.args === '' ? {} : (JSON.parse(c.args) as unknown),
  }))
  const stopReason: StopReason =
    finish === 'length'
      ? 'length'
      : finish === 'content_filter'
        ? 'refusal'
        : toolCalls.length > 0
          ? 'tool-calls'
          : 'stop'
  return { ok: true, thinking, text, toolCalls, stopReason }
}
