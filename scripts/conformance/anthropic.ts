/**
 * Checks recorded Anthropic Messages streams against `anthropic()`. `.chunks.txt` files hold one
 * event per line (data only): each gets its `event:` line back, as the API sends it. `.sse` files
 * (the repository's own fixtures) hold an SSE body as the API sends it, replayed as it is. `.json`
 * files hold a whole (non-streaming) message: it is streamed the way the API would stream it, and
 * the turn's items must equal its `content` (then its container, when it has one). What a
 * recording should come to is read from the recording itself, independently of the adapter.
 */
import { isDeepStrictEqual } from 'node:util'
import { anthropic } from '../../src/providers/anthropic/index.ts'
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

const KIND_BY_TYPE: Record<string, string> = {
  invalid_request_error: 'invalid-request',
  authentication_error: 'auth',
  permission_error: 'auth',
  not_found_error: 'invalid-request',
  rate_limit_error: 'rate-limit',
  api_error: 'server',
  overloaded_error: 'overloaded',
}

const STOP: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool-calls',
  refusal: 'refusal',
}

/**
 * A tool call's input: its fragments as JSON (`{}` when blank), or undefined when they are
 * unfinished; with no fragment at all, the input its block started with (Anthropic starts every
 * call with `{}`; compatible servers such as Ollama send the whole input there).
 */
function inputOf(tool: {
  json: string | undefined
  start: unknown
}): { input: unknown } | undefined {
  const { json, start } = tool
  if (json === undefined)
    return {
      input: typeof start === 'object' && start !== null && !Array.isArray(start) ? start : {},
    }
  if (json.trim() === '') return { input: {} }
  try {
    return { input: JSON.parse(json) as unknown }
  } catch {
    return undefined
  }
}

/**
 * What a recorded event list should stream: summed from its deltas (thinking blocks a paragraph
 * apart once one showed text), or the error it ends in. A tool call whose input is unfinished (not
 * JSON, or its block never stopped) is left out when the output limit or a refusal cut the turn,
 * and fails the stream otherwise.
 */
function expectedOf(events: readonly unknown[]): { outcome: Outcome; note?: string | undefined } {
  let thinking = ''
  let text = ''
  let stop = 'other'
  let open = false
  let finished = false
  const tools = new Map<
    number,
    { name: string; json: string | undefined; start: unknown; stopped: boolean }
  >()
  /** Tool blocks in the order they stopped: the order their calls stream. */
  const stops: number[] = []
  for (const event of events) {
    const type = field(event, 'type')
    const index = Number(field(event, 'index'))
    if (type === 'message_start') {
      if (open)
        return {
          outcome: { ok: false, kind: 'server' },
          note: 'a second message_start before message_stop is a broken stream: it must fail',
        }
      open = true
    } else if (type === 'message_stop') {
      open = false
      finished = true
    } else if (type === 'error') {
      const errorType = String(field(field(event, 'error'), 'type'))
      return { outcome: { ok: false, kind: KIND_BY_TYPE[errorType] ?? 'server' } }
    } else if (type === 'content_block_start') {
      const block = field(event, 'content_block')
      if (field(block, 'type') === 'tool_use')
        tools.set(index, {
          name: String(field(block, 'name')),
          json: undefined,
          start: field(block, 'input'),
          stopped: false,
        })
      if (field(block, 'type') === 'thinking' && thinking !== '') thinking += '\n\n'
    } else if (type === 'content_block_delta') {
      const delta = field(event, 'delta')
      const kind = field(delta, 'type')
      if (kind === 'thinking_delta') thinking += String(field(delta, 'thinking'))
      if (kind === 'text_delta') text += String(field(delta, 'text'))
      if (kind === 'input_json_delta') {
        const tool = tools.get(index)
        if (tool !== undefined) tool.json = (tool.json ?? '') + String(field(delta, 'partial_json'))
      }
    } else if (type === 'content_block_stop') {
      const tool = tools.get(index)
      if (tool !== undefined && !tool.stopped) {
        tool.stopped = true
        stops.push(index)
      }
    } else if (type === 'message_delta') {
      stop = STOP[String(field(field(event, 'delta'), 'stop_reason'))] ?? 'other'
    }
  }
  if (!finished)
    return {
      outcome: { ok: false, kind: 'network' },
      note: 'the recording ends before message_stop: the turn is incomplete and must fail',
    }
  const cutShort = stop === 'length' || stop === 'refusal'
  const unfinished = [...tools.values()].filter(
    (tool) => !tool.stopped || inputOf(tool) === undefined,
  )
  if (unfinished.length > 0 && !cutShort)
    return {
      outcome: { ok: false, kind: 'server' },
      note: 'a tool call with unfinished input in a turn that was not cut short must fail',
    }
  const toolCalls = stops.flatMap((index) => {
    const tool = tools.get(index)!
    const parsed = inputOf(tool)
    return parsed === undefined ? [] : [{ name: tool.name, input: parsed.input }]
  })
  const note =
    unfinished.length > 0
      ? `cut off: ${unfinished.map((tool) => tool.name).join(', ')} must be dropped`
      : undefined
  return { outcome: { ok: true, thinking, text, toolCalls, stopReason: stop }, note }
}

/** The stream the API sends for a whole message: each block started empty, filled, stopped. */
function streamOfMessage(message: unknown): unknown[] {
  const content = field(message, 'content')
  const blocks: unknown[] = Array.isArray(content) ? content : []
  const events: unknown[] = [
    { type: 'message_start', message: { ...(message as object), content: [], stop_reason: null } },
  ]
  blocks.forEach((block, index) => {
    const type = field(block, 'type')
    const start = (patch: object) =>
      events.push({
        type: 'content_block_start',
        index,
        content_block: { ...(block as object), ...patch },
      })
    const delta = (d: object) => events.push({ type: 'content_block_delta', index, delta: d })
    if (type === 'thinking') {
      start({ thinking: '', signature: '' })
      delta({ type: 'thinking_delta', thinking: field(block, 'thinking') })
      delta({ type: 'signature_delta', signature: field(block, 'signature') })
    } else if (type === 'text') {
      start({ text: '' })
      delta({ type: 'text_delta', text: field(block, 'text') })
    } else if (type === 'tool_use' || type === 'server_tool_use') {
      start({ input: {} })
      delta({ type: 'input_json_delta', partial_json: JSON.stringify(field(block, 'input')) })
    } else start({})
    events.push({ type: 'content_block_stop', index })
  })
  events.push(
    {
      type: 'message_delta',
      delta: { stop_reason: field(message, 'stop_reason'), stop_sequence: null },
      usage: field(message, 'usage'),
    },
    { type: 'message_stop' },
  )
  return events
}

// A recording is one message: a paused one ends the stream rather than being continued.
const make = (fetch: typeof globalThis.fetch) =>
  anthropic({ apiKey: 'conformance-key', model: 'claude-sonnet-5', fetch, pauseContinuations: 0 })

/** Checks every recording in the folder. */
export async function check(files: RecordingFile[]): Promise<CheckRow[]> {
  const rows: CheckRow[] = []
  for (const file of files) {
    if (file.name.endsWith('.chunks.txt')) {
      const events = chunkLines(file.text)
      const { outcome: expected, note } = expectedOf(events)
      const { outcome } = await replayBody(sseFrames(events), make)
      rows.push(compare(file.name, expected, outcome, note))
    } else if (file.name.endsWith('.sse')) {
      const { outcome: expected, note } = expectedOf(sseEvents(file.text))
      const { outcome } = await replayBody(file.text, make)
      rows.push(compare(file.name, expected, outcome, note))
    } else if (file.name.endsWith('.json')) {
      const message = JSON.parse(file.text) as unknown
      if (field(message, 'type') !== 'message') {
        rows.push(
          skipped(
            file.name,
            'a JSON file that is not a Messages API message (an error body, say) holds no stream',
            'not a message',
          ),
        )
        continue
      }
      const events = streamOfMessage(message)
      const { outcome: expected } = expectedOf(events)
      const { outcome, done } = await replayBody(sseFrames(events), make)
      const row = compare(
        file.name,
        expected,
        outcome,
        'streamed as the API would; items must equal content',
      )
      const container = field(message, 'container')
      const content = field(message, 'content')
      const items =
        container === undefined || container === null || !Array.isArray(content)
          ? content
          : [...content, { type: 'thinkwire_container', container }]
      const same = isDeepStrictEqual(done?.turn.items?.data, items)
      rows.push({
        ...row,
        ok: row.ok && same,
        actual: `${row.actual}${same ? ', items = content' : ', ITEMS DIFFER'}`,
      })
    } else {
      rows.push(
        skipped(
          file.name,
          'only .sse, .chunks.txt and .json recordings are read',
          'no checker for this format',
        ),
      )
    }
  }
  return rows
}
