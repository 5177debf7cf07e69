import type { AssistantTurn, ToolResult, Turn } from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import { decodeSealedTurn, sealedTurnFor } from '../sealed-turn.ts'
import { plainTurn } from '../request-parts.ts'
import * as v from '../validate-json.ts'
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
export function typeOf(part: v.JsonRecord, at: string): string {
  return v.string(v.own(part, 'type'), `${at}.type`, { nonEmpty: true })
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
    const part = v.record(value, where)
    const type = typeOf(part, where)
    if (type === 'step-start') {
      steps.push(step)
      step = { index: step.index + 1, text: '', textAt: undefined, calls: [], results: [] }
    } else if (type === 'text') {
      step.text += v.string(v.own(part, 'text'), `${where}.text`)
      step.textAt ??= `${where}.text`
    } else if (type === 'reasoning') {
      // Shown only: the reasoning a model takes back is the sealed record's, never this text.
      v.string(v.own(part, 'text'), `${where}.text`)
    } else if (type === 'file') {
      notes.push(`${where} left out: the relay sends no file of an answer back to a model`)
    } else if (type === 'dynamic-tool' || type.startsWith('tool-')) {
      toolPart(part, type, where, step, notes)
    } else if (!shownOnly(type)) {
      v.fail(`${where}.type`, `is not a part of an assistant message, got ${v.describe(type)}`)
    }
  })
  steps.push(step)
  return steps
}

function toolPart(part: v.JsonRecord, type: string, at: string, step: Step, notes: string[]): void {
  const name =
    type === 'dynamic-tool'
      ? v.string(v.own(part, 'toolName'), `${at}.toolName`, { nonEmpty: true })
      : v.string(type.slice('tool-'.length), `${at}.type`, { nonEmpty: true })
  const id = v.string(v.own(part, 'toolCallId'), `${at}.toolCallId`, { nonEmpty: true })
  const state = v.oneOf(v.own(part, 'state'), `${at}.state`, TOOL_STATES)
  if (v.own(part, 'providerExecuted') === true) {
    notes.push(`${at} left out: the provider ran it, and the relay cannot send that back`)
    return
  }
  if (state === 'input-streaming') {
    notes.push(`${at} left out: its input never arrived whole`)
    return
  }
  let input = v.own(part, 'input')
  // A call whose input did not parse fails with no input (the AI SDK's `tool-input-error`).
  if (input === undefined && state === 'output-error') input = {}
  if (input === undefined) v.fail(`${at}.input`, 'is required')
  step.calls.push({ call: { id, name, input }, at, state })
  const result = (output: unknown, isError: boolean) =>
    step.results.push({
      result: isError ? { callId: id, name, output, isError } : { callId: id, name, output },
      at,
    })
  if (state === 'output-available') {
    // An output of `undefined` is absent from the JSON.
    result(v.own(part, 'output') ?? null, false)
  } else if (state === 'output-error') {
    result(v.string(v.own(part, 'errorText'), `${at}.errorText`), true)
  } else if (state === 'output-denied') {
    const approval = v.own(part, 'approval')
    const reason = v.isRecord(approval) ? v.own(approval, 'reason') : undefined
    result(typeof reason === 'string' ? reason : 'The user denied this tool call.', true)
  }
}

/** In the last message, every call of its last step needs its outcome: the model waits for it. */
export function answered(step: Step): void {
  for (const { at, state } of step.calls) {
    if (!(ANSWERED as readonly string[]).includes(state)) {
      v.fail(
        `${at}.state`,
        `must be 'output-available', 'output-error' or 'output-denied' in the last message (add the tool's output first), got ${v.describe(state)}`,
      )
    }
  }
}

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
  const plain = plainTurn(
    step.text,
    step.calls.map(({ call }) => call),
  )
  let turn = plain
  const entry = step.index < 0 ? undefined : records[step.index]
  if (entry?.sealed !== undefined) {
    const field = `${at}.metadata.thinkwire.steps[${step.index}]`
    const kept = keptTurn(entry.sealed, entry.model, model, plain, {
      text: `the text of ${at}'s step ${step.index}`,
      toolCalls: `the tool parts of ${at}'s step ${step.index}`,
    })
    if (kept.ok) turn = kept.turn
    else
      notes.push(
        `${field} dropped: ${kept.reason}, so the step was sent from its text and tool calls`,
      )
  }
  if (turn.text === '' && turn.toolCalls === undefined && turn.items === undefined) return
  turns.push(turn)
  origins.push({ at, text: step.textAt, entries: step.calls.map((call) => call.at) })
  if (step.results.length === 0) return
  turns.push({ role: 'tool', results: step.results.map(({ result }) => result) })
  origins.push({ at, entries: step.results.map((result) => result.at) })
}

/**
 * The turn a step's sealed record holds, when `made` (the model the record says answered it) is
 * the call's `model` and the record stands for the step as the client sent it (`plain`); else why
 * not.
 */
function keptTurn(
  sealedTurn: string,
  made: string,
  model: string,
  plain: AssistantTurn,
  what: { text: string; toolCalls: string },
): ReturnType<typeof sealedTurnFor> {
  const sealed = decodeSealedTurn(sealedTurn)
  if (sealed === undefined) return { ok: false, reason: 'its sealed turn does not decode' }
  if (made !== model)
    return { ok: false, reason: `it was made by ${v.describe(made)}, not ${v.describe(model)}` }
  return sealedTurnFor(sealed, plain, what)
}
