import type {
  AssistantTurn,
  ToolResult,
  Turn,
  Usage,
  UserPart,
  UserTurn,
} from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import type { FieldTable, WireCallOptions, WireChatRequest } from '../../core/wire.ts'
import { decodeSealedTurn, sealedMismatch, turnOfRecord } from '../sealed-turn.ts'
import {
  array,
  describe,
  fail,
  Invalid,
  isRecord,
  oneOf,
  own,
  record,
  string,
  type JsonRecord,
} from '../validate-json.ts'
import type { UiStep } from './encode.ts'

/** An AI SDK chat request, translated into a `/v1/chat` body. */
export type TranslatedUiRequest = {
  ok: true
  /** The `/v1/chat` body, still to be checked by `validateChatRequest`. */
  request: WireChatRequest
  /** Where each turn of `request.conversation` came from (see {@link rewriteUiField}). */
  origins: TurnOrigin[]
  /**
   * The assistant message the answer goes on with (the last message, after the app added its
   * tool outputs): its id, and its steps' records so far. Undefined when the answer is a new
   * message.
   */
  continues: { id: string; earlier: (UiStep | null)[] } | undefined
  /** What was left out or dropped, by field path and reason (never the client's text). */
  notes: string[]
}

/** An AI SDK chat request refused: the field at fault and what is wrong with it. */
export type RefusedUiRequest = {
  ok: false
  /** The field at fault as a path of the request (`messages[1].parts[2].input`). */
  field: string
  /** Starts with the field's path, as the relay's own validation messages do. */
  message: string
}

/**
 * Where a turn came from: its message, and the part of each entry of its list (a user turn's
 * `content`, an assistant turn's `toolCalls`, a tool turn's `results`).
 */
export type TurnOrigin = {
  /** `messages[i]` */
  at: string
  /** The first text part of the turn's step, for a field of its joined `text`. */
  text?: string | undefined
  entries: string[]
}

/** What the relay does with a top-level field of the request. */
type FieldUse = 'mapped' | 'ignored'

/** `/v1/chat`'s call options, taken under their own names from the app's `body`. */
const CALL_OPTIONS: FieldTable<WireCallOptions, 'mapped'> = {
  thinking: 'mapped',
  tools: 'mapped',
  toolChoice: 'mapped',
  maxTokens: 'mapped',
  temperature: 'mapped',
  stop: 'mapped',
  responseFormat: 'mapped',
  cache: 'mapped',
}

/**
 * Every top-level field the relay takes: the four that the AI SDK's `DefaultChatTransport` (ai 6)
 * writes around the app's `body` (the chat's `id`, `messages`, `trigger`, `messageId`), and what
 * the app's `body` may hold: `model` and `/v1/chat`'s call options. Any other field is refused,
 * so that a client cannot reach a key, a base URL or a provider option, and a misspelt option
 * does not pass silently. (The tests check this list against what the transport sends.)
 */
export const UI_REQUEST_FIELDS: Readonly<Record<string, FieldUse>> = {
  id: 'ignored',
  messages: 'mapped',
  trigger: 'ignored',
  messageId: 'ignored',
  model: 'mapped',
  ...CALL_OPTIONS,
}

const ROLES = ['system', 'user', 'assistant'] as const
const TRIGGERS = ['submit-message', 'regenerate-message'] as const
const TOOL_STATES = [
  'input-streaming',
  'input-available',
  'approval-requested',
  'approval-responded',
  'output-available',
  'output-error',
  'output-denied',
] as const
/** The states a tool part of the last message must have: the model needs every call's outcome. */
const ANSWERED = ['output-available', 'output-error', 'output-denied'] as const
const DATA_URL = /^data:(image\/[^;,]+);base64,(.*)$/is
/** Parts that only show something (or hold an app's data): never sent to a model. */
const SHOWN = new Set(['source-url', 'source-document'])

/**
 * Translates an AI SDK chat request (`POST /v1/ai-sdk/chat`: `{ id, messages, trigger,
 * messageId }` around the app's `body`) into a `/v1/chat` body. Checks only the UI messages'
 * shape; limits, names and depth are left to `validateChatRequest`, whose field paths
 * {@link rewriteUiField} turns back into the request's. Never throws on a parsed JSON body.
 *
 * An assistant message becomes one assistant turn per step (its `step-start` parts divide them),
 * each followed by a tool turn of its tool parts' outputs. A step whose record in the message's
 * `metadata.thinkwire.steps` holds the turn the relay sealed becomes that turn, items and seal
 * included, when the record's text and tool calls are the step's and it was made for the model
 * asked for; otherwise the step is built from its parts and a note says why its reasoning state
 * was dropped.
 */
export function translateUiRequest(body: unknown): TranslatedUiRequest | RefusedUiRequest {
  if (!isRecord(body)) {
    return {
      ok: false,
      field: 'body',
      message: `body must be a JSON object, got ${describe(body)}`,
    }
  }
  try {
    return translate(body)
  } catch (error) {
    if (!(error instanceof Invalid)) throw error
    return { ok: false, field: error.field, message: error.message }
  }
}

function translate(body: JsonRecord): TranslatedUiRequest {
  const options: Record<string, unknown> = {}
  for (const key of Object.keys(body)) {
    const use = Object.hasOwn(UI_REQUEST_FIELDS, key) ? UI_REQUEST_FIELDS[key] : undefined
    if (use === undefined) {
      fail(
        describe(key).slice(1, -1),
        `is not a field of this route (known: ${Object.keys(UI_REQUEST_FIELDS).join(', ')}); a relay client picks no key, base URL or provider option`,
      )
    }
    if (Object.hasOwn(CALL_OPTIONS, key)) options[key] = body[key]
  }
  for (const key of ['id', 'messageId'] as const) {
    const value = own(body, key)
    if (value !== undefined) string(value, key)
  }
  const trigger = own(body, 'trigger')
  if (trigger !== undefined) oneOf(trigger, 'trigger', TRIGGERS)

  const model = string(own(body, 'model'), 'model', { nonEmpty: true })
  const notes: string[] = []
  const messages = array(own(body, 'messages'), 'messages')
  if (messages.length === 0) fail('messages', 'must not be empty')
  const system: string[] = []
  const turns: Turn[] = []
  const origins: TurnOrigin[] = []
  let continues: TranslatedUiRequest['continues']
  for (let i = 0; i < messages.length; i++) {
    const at = `messages[${i}]`
    const message = record(messages[i], at)
    const role = oneOf(own(message, 'role'), `${at}.role`, ROLES)
    const parts = array(own(message, 'parts'), `${at}.parts`)
    const last = i === messages.length - 1
    switch (role) {
      case 'system': {
        const text = systemText(parts, at)
        if (text !== '') system.push(text)
        break
      }
      case 'user':
        turns.push(userTurn(parts, at, origins))
        break
      case 'assistant': {
        const steps = assistantSteps(parts, at, notes)
        const records = stepRecords(own(message, 'metadata'))
        if (last) answered(steps.at(-1)!)
        for (const step of steps) pushStep(step, records, { at, model, notes }, turns, origins)
        if (last) {
          const id = string(own(message, 'id'), `${at}.id`, { nonEmpty: true })
          const count = parts.filter((part) => isRecord(part) && part['type'] === 'step-start')
          continues = { id, earlier: count.map((_, k) => records[k] ?? null) }
        }
        break
      }
    }
  }
  const conversation = system.length === 0 ? { turns } : { system: system.join('\n\n'), turns }
  return { ok: true, request: { model, conversation, ...options }, origins, continues, notes }
}

/** A part's `type`, checked to be a string. */
function typeOf(part: JsonRecord, at: string): string {
  return string(own(part, 'type'), `${at}.type`, { nonEmpty: true })
}

function systemText(parts: readonly unknown[], at: string): string {
  let text = ''
  parts.forEach((value, j) => {
    const part = record(value, `${at}.parts[${j}]`)
    oneOf(typeOf(part, `${at}.parts[${j}]`), `${at}.parts[${j}].type`, ['text'])
    text += string(own(part, 'text'), `${at}.parts[${j}].text`)
  })
  return text
}

function userTurn(parts: readonly unknown[], at: string, origins: TurnOrigin[]): UserTurn {
  const content: UserPart[] = []
  const entries: string[] = []
  parts.forEach((value, j) => {
    const where = `${at}.parts[${j}]`
    const part = record(value, where)
    const type = typeOf(part, where)
    if (type === 'text') {
      content.push({ type: 'text', text: string(own(part, 'text'), `${where}.text`) })
    } else if (type === 'file') {
      content.push(imagePart(part, where))
    } else if (type === 'step-start' || SHOWN.has(type) || type.startsWith('data-')) {
      return
    } else {
      fail(`${where}.type`, `must be 'text' or 'file' in a user message, got ${describe(type)}`)
    }
    entries.push(where)
  })
  origins.push({ at, entries })
  return { role: 'user', content }
}

function imagePart(part: JsonRecord, at: string): UserPart {
  const mediaType = string(own(part, 'mediaType'), `${at}.mediaType`)
  if (!mediaType.toLowerCase().startsWith('image/')) {
    fail(
      `${at}.mediaType`,
      `must be an image type (the relay sends images only), got ${describe(mediaType)}`,
    )
  }
  const url = string(own(part, 'url'), `${at}.url`)
  if (!/^data:/i.test(url)) return { type: 'image', url }
  const match = DATA_URL.exec(url)
  if (match === null) fail(`${at}.url`, 'must be an http(s) URL or a data:image/...;base64, URL')
  return { type: 'image', mediaType: match[1]!.toLowerCase(), data: match[2]! }
}

/** One step of an assistant message: what its parts say, each with where it came from. */
type Step = {
  /** Its place among the message's steps (its `step-start`'s), or -1 for parts before any. */
  index: number
  text: string
  /** The first text part's path. */
  textAt: string | undefined
  calls: { call: ToolCall; at: string; state: (typeof TOOL_STATES)[number] }[]
  results: { result: ToolResult; at: string }[]
}

function assistantSteps(parts: readonly unknown[], at: string, notes: string[]): Step[] {
  const steps: Step[] = []
  let step: Step = { index: -1, text: '', textAt: undefined, calls: [], results: [] }
  parts.forEach((value, j) => {
    const where = `${at}.parts[${j}]`
    const part = record(value, where)
    const type = typeOf(part, where)
    if (type === 'step-start') {
      steps.push(step)
      step = { index: step.index + 1, text: '', textAt: undefined, calls: [], results: [] }
    } else if (type === 'text') {
      step.text += string(own(part, 'text'), `${where}.text`)
      step.textAt ??= `${where}.text`
    } else if (type === 'reasoning') {
      // Shown only: the reasoning a model takes back is the sealed record's, never this text.
      string(own(part, 'text'), `${where}.text`)
    } else if (type === 'file') {
      notes.push(`${where} left out: the relay sends no file of an answer back to a model`)
    } else if (type === 'dynamic-tool' || type.startsWith('tool-')) {
      toolPart(part, type, where, step, notes)
    } else if (!SHOWN.has(type) && !type.startsWith('data-')) {
      fail(`${where}.type`, `is not a part of an assistant message, got ${describe(type)}`)
    }
  })
  steps.push(step)
  return steps
}

function toolPart(part: JsonRecord, type: string, at: string, step: Step, notes: string[]): void {
  const name =
    type === 'dynamic-tool'
      ? string(own(part, 'toolName'), `${at}.toolName`, { nonEmpty: true })
      : string(type.slice('tool-'.length), `${at}.type`, { nonEmpty: true })
  const id = string(own(part, 'toolCallId'), `${at}.toolCallId`, { nonEmpty: true })
  const state = oneOf(own(part, 'state'), `${at}.state`, TOOL_STATES)
  if (own(part, 'providerExecuted') === true) {
    notes.push(`${at} left out: the provider ran it, and the relay cannot send that back`)
    return
  }
  if (state === 'input-streaming') {
    notes.push(`${at} left out: its input never arrived whole`)
    return
  }
  let input = own(part, 'input')
  // A call whose input did not parse fails with no input (the AI SDK's `tool-input-error`).
  if (input === undefined && state === 'output-error') input = {}
  if (input === undefined) fail(`${at}.input`, 'is required')
  step.calls.push({ call: { id, name, input }, at, state })
  const result = (output: unknown, isError: boolean) =>
    step.results.push({
      result: isError ? { callId: id, name, output, isError } : { callId: id, name, output },
      at,
    })
  if (state === 'output-available') {
    // An output of `undefined` is absent from the JSON.
    result(own(part, 'output') ?? null, false)
  } else if (state === 'output-error') {
    result(string(own(part, 'errorText'), `${at}.errorText`), true)
  } else if (state === 'output-denied') {
    const approval = own(part, 'approval')
    const reason = isRecord(approval) ? own(approval, 'reason') : undefined
    result(typeof reason === 'string' ? reason : 'The user denied this tool call.', true)
  }
}

/** In the last message, every call of its last step needs its outcome: the model waits for it. */
function answered(step: Step): void {
  for (const { at, state } of step.calls) {
    if (!(ANSWERED as readonly string[]).includes(state)) {
      fail(
        `${at}.state`,
        `must be 'output-available', 'output-error' or 'output-denied' in the last message (add the tool's output first), got ${describe(state)}`,
      )
    }
  }
}

/**
 * The records of an assistant message's steps, from its `metadata.thinkwire.steps`: each rebuilt
 * from its known fields, null where an entry is not one. Whether a record holds a turn the relay
 * sealed is decided later, step by step.
 */
function stepRecords(metadata: unknown): (UiStep | null)[] {
  const thinkwire = isRecord(metadata) ? own(metadata, 'thinkwire') : undefined
  const steps = isRecord(thinkwire) ? own(thinkwire, 'steps') : undefined
  if (!Array.isArray(steps)) return []
  return steps.map((entry: unknown) => {
    if (!isRecord(entry)) return null
    const model = own(entry, 'model')
    const usage = usageOf(own(entry, 'usage'))
    const sealed = own(entry, 'sealed')
    if (typeof model !== 'string' || usage === undefined) return null
    const step: UiStep = { model, usage }
    if (typeof sealed === 'string') step.sealed = sealed
    return step
  })
}

/** The counts of a step's usage that are numbers (it goes back to the client, which shows it). */
function usageOf(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined
  const count = (key: keyof Usage) => {
    const n = own(value, key)
    return typeof n === 'number' && Number.isFinite(n) ? n : undefined
  }
  const inputTokens = count('inputTokens')
  const outputTokens = count('outputTokens')
  if (inputTokens === undefined || outputTokens === undefined) return undefined
  const usage: Usage = { inputTokens, outputTokens }
  for (const key of OPTIONAL_USAGE) {
    const n = count(key)
    if (n !== undefined) usage[key] = n
  }
  return usage
}

const OPTIONAL_USAGE = [
  'reasoningTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'cost',
] as const satisfies readonly (keyof Usage)[]

/**
 * Adds a step's turns: its assistant turn (the sealed one when its record holds it), then a tool
 * turn of its outputs. A step that says nothing (a stop before its first word) adds none.
 */
function pushStep(
  step: Step,
  records: readonly (UiStep | null)[],
  where: { at: string; model: string; notes: string[] },
  turns: Turn[],
  origins: TurnOrigin[],
): void {
  const { at, model, notes } = where
  const calls = step.calls.map(({ call }) => call)
  const plain: AssistantTurn = {
    role: 'assistant',
    text: step.text,
    usage: { inputTokens: 0, outputTokens: 0 },
    stopReason: calls.length > 0 ? 'tool-calls' : 'stop',
  }
  if (calls.length > 0) plain.toolCalls = calls
  let turn = plain
  const entry = step.index < 0 ? undefined : records[step.index]
  if (entry?.sealed !== undefined) {
    const field = `${at}.metadata.thinkwire.steps[${step.index}]`
    const sealed = decodeSealedTurn(entry.sealed)
    const reason =
      sealed === undefined
        ? 'its sealed turn does not decode'
        : entry.model !== model
          ? `it was made by ${describe(entry.model)}, not ${describe(model)}`
          : sealedMismatch(sealed, step.text, calls, {
              text: `the text of ${at}'s step ${step.index}`,
              toolCalls: `the tool parts of ${at}'s step ${step.index}`,
            })
    if (sealed !== undefined && reason === undefined) turn = turnOfRecord(sealed, plain)
    else
      notes.push(`${field} dropped: ${reason}, so the step was sent from its text and tool calls`)
  }
  if (turn.text === '' && turn.toolCalls === undefined && turn.items === undefined) return
  turns.push(turn)
  origins.push({ at, text: step.textAt, entries: step.calls.map((call) => call.at) })
  if (step.results.length === 0) return
  turns.push({ role: 'tool', results: step.results.map(({ result }) => result) })
  origins.push({ at, entries: step.results.map((result) => result.at) })
}

const TURN_FIELD = /^conversation\.turns\[(\d+)\](.*)$/s
const ENTRY_FIELD = /^\.(content|toolCalls|results)\[(\d+)\](.*)$/s

/** The fields of a turn's entries, by the request's names: `toolCalls[j].id` → `toolCallId`. */
const ENTRY_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  content: { '.text': '.text', '.url': '.url', '.data': '.url', '.mediaType': '.mediaType' },
  toolCalls: { '.id': '.toolCallId', '.input': '.input' },
  results: { '.callId': '.toolCallId', '.output': '.output' },
}

/**
 * The request's field for a field path of `validateChatRequest`: `conversation.turns[k]…` becomes
 * the message (and part) turn `k` came from (`origins`), with the turn's field names turned back
 * into the UI message's (`content[j]` → `parts[p]`, `toolCalls[j].id` → `parts[p].toolCallId`,
 * `items` → `metadata.thinkwire`). The call options keep their names. Paths it does not know are
 * returned as they are.
 */
export function rewriteUiField(field: string, origins: readonly TurnOrigin[]): string {
  const turn = TURN_FIELD.exec(field)
  if (turn === null) {
    return field === 'conversation' || field.startsWith('conversation.') ? 'messages' : field
  }
  const origin = origins[Number(turn[1])]
  if (origin === undefined) return 'messages'
  const rest = turn[2]!
  const entry = ENTRY_FIELD.exec(rest)
  if (entry !== null) {
    const [, list, j, tail] = entry
    const base = origin.entries[Number(j)] ?? `${origin.at}.parts`
    const names = ENTRY_NAMES[list!]!
    const name = Object.keys(names).find((key) => tail === key || tail!.startsWith(`${key}.`))
    return name === undefined ? base : `${base}${names[name]}${tail!.slice(name.length)}`
  }
  if (rest === '.content' || rest === '.toolCalls' || rest === '.results')
    return `${origin.at}.parts`
  if (rest === '.text') return origin.text ?? `${origin.at}.parts`
  if (rest === '.thinking' || rest.startsWith('.items')) return `${origin.at}.metadata.thinkwire`
  if (rest === '.role') return `${origin.at}.role`
  return origin.at
}

/** {@link rewriteUiField} for a refusal: the field, and the message that starts with it. */
export function rewriteUiError(
  error: { field: string; message: string },
  origins: readonly TurnOrigin[],
): { field: string; message: string } {
  const field = rewriteUiField(error.field, origins)
  const message = error.message.startsWith(error.field)
    ? `${field}${error.message.slice(error.field.length)}`
    : error.message
  return { field, message }
}
