import type { ToolResult, ToolTurn } from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import type { WirePending, WireToolResult } from '../../core/wire.ts'
import type { SpanContext } from '../tracing.ts'
import { errorResult } from './server-tools.ts'

/** Where one call of a tool step is. */
export type CallState =
  /** A server tool runs it. */
  | { is: 'running' }
  /** It waits for a person's decision (`expiresAt`: epoch ms). */
  | { is: 'approval'; approvalId: string; expiresAt: number }
  /** It waits for its client's tool turn. */
  | { is: 'client' }
  /** It has its result: from a server tool, a decision, the relay, or its client. */
  | { is: 'answered'; result: ToolResult }

/** One call of a tool step, and where it is. */
export type StepCall = { call: ToolCall; state: CallState }

/**
 * The tool step of a conversation's loop (DESIGN §13): the calls of its last assistant turn while
 * they are answered, stored after each change that leaves a call open (so a restart finds them),
 * until every call has a result and the tool turn is stored. Plain JSON; the functions below read
 * and change it.
 */
export type ToolStep = {
  /** The conversation's tool step number, which approval ids are bound to. */
  step: number
  calls: StepCall[]
  /** The `done` of the turn that made the calls has been sent. */
  announced: boolean
  /** The span of the model call that made them, when traced: its tools' runs go under it. */
  trace?: SpanContext | undefined
}

/** A result as the stream's `tool-result` event and `pending` say it: `isError` always said. */
export function wireToolResult(result: ToolResult): WireToolResult {
  const { callId, name, output, isError } = result
  return { callId, name, output, isError: isError === true }
}

/**
 * The calls still waiting for a person or a client, and the results the step has: what `GET`
 * lists as `pending`, in the order of the calls.
 */
export function pendingOf(step: ToolStep): WirePending {
  const results: WireToolResult[] = []
  const pending: WirePending = { approvals: [], calls: [], results }
  for (const { call, state } of step.calls) {
    if (state.is === 'approval') {
      pending.approvals.push({
        approvalId: state.approvalId,
        callId: call.id,
        name: call.name,
        input: call.input,
        expiresAt: new Date(state.expiresAt).toISOString(),
      })
    } else if (state.is === 'client') pending.calls.push(call)
    else if (state.is === 'answered') results.push(wireToolResult(state.result))
  }
  return pending
}

/** Whether a server tool of the step still runs. */
export function isRunning(step: ToolStep): boolean {
  return step.calls.some(({ state }) => state.is === 'running')
}

/** Whether every call of the step has its result. */
export function isAnswered(step: ToolStep): boolean {
  return step.calls.every(({ state }) => state.is === 'answered')
}

/** The step's tool turn: every call's result, in the order of the calls. */
export function toolTurnOf(step: ToolStep): ToolTurn {
  const results: ToolResult[] = []
  for (const { state } of step.calls) if (state.is === 'answered') results.push(state.result)
  return { role: 'tool', results }
}

/** The call `callId` of the step while it waits or runs; undefined once answered, or unknown. */
export function openCall(step: ToolStep, callId: string): StepCall | undefined {
  return step.calls.find(({ call, state }) => call.id === callId && state.is !== 'answered')
}

/** The call waiting on approval `approvalId`. */
export function approvalCall(step: ToolStep, approvalId: string): StepCall | undefined {
  return step.calls.find(({ state }) => state.is === 'approval' && state.approvalId === approvalId)
}

/** Answers `call` with `result`, unless it has one already; true when it did. */
export function answerCall(call: StepCall, result: ToolResult): boolean {
  if (call.state.is === 'answered') return false
  call.state = { is: 'answered', result }
  return true
}

/**
 * Answers every call of the step that has no result yet with the error `message` (a stop, the
 * step limit): the results it made, in call order.
 */
export function answerOpen(step: ToolStep, message: string): ToolResult[] {
  const made: ToolResult[] = []
  for (const stepCall of step.calls) {
    const result = errorResult(stepCall.call, message)
    if (answerCall(stepCall, result)) made.push(result)
  }
  return made
}

/**
 * What the step waits on, for the 409 a message gets meanwhile: each approval and client call,
 * by tool name and call id.
 */
export function waitingOn(step: ToolStep): string {
  const { approvals, calls } = pendingOf(step)
  const parts = [
    ...approvals.map((a) => `an approval of ${a.name} (call ${a.callId})`),
    ...calls.map((c) => `the client's result of ${c.name} (call ${c.id})`),
  ]
  if (isRunning(step)) parts.push('server tools that run')
  return parts.join(', ')
}
