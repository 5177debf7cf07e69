import type { AssistantTurn, ToolResult, Turn, Usage } from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import { decodeSealedTurn, sealedMismatch, turnOfRecord } from '../sealed-turn.ts'
import {
  describe,
  fail,
  isRecord,
  oneOf,
  own,
  record,
  string,
  type JsonRecord,
} from '../validate-json.ts'
import type { UiStep } from './encode.ts'
import type { TurnOrigin } from './rewrite-field.ts'

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
const SHOWN = new Set(['source-url', 'source-document'])

/**
 * Whether a part only shows something or holds an app's data (`source-*`, `data-*`): never sent
 * to a model.
 */
export function shownOnly(type: string): boolean {
  return SHOWN.has(type) || type.startsWith('data-')
}

/** A part's `type`, checked to be a string. */
export function typeOf(part: JsonRecord, at: string): string {
  return string(own(part, 'type'), `${at}.type`, { nonEmpty: true })
}

/** One step of an assistant message: what its parts say, each with where it came from. */
export type Step = {
  /** Its place among the message's steps (its `step-start`'s), or -1 for parts before any. */
  index: number
  text: string
  /** The first text part's path. */
  textAt: string | undefined
  calls: { call: ToolCall; at: string; state: (typeof TOOL_STATES)[number] }[]
  results: { result: ToolResult; at: string }[]
}

/**
 * The steps of an assistant message, divided by its `step-start` parts. Reasoning parts are
 * checked and left out (shown only: a model gets back the sealed record's thinking); a file the
 * model made, a call whose input never arrived whole and a call the provider ran are left out,
 * with a note each.
 */
export function assistantSteps(parts: readonly unknown[], at: string, notes: string[]): Step[] {
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
    } else if (!shownOnly(type)) {
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
export function answered(step: Step): void {
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
export function stepRecords(metadata: unknown): (UiStep | null)[] {
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
export function pushStep(
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
