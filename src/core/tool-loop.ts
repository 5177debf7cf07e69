import type { Adapter, CallOptions } from './adapter.ts'
import type { AssistantTurn, Conversation, ToolResult, ToolTurn, Turn } from './conversation.ts'
import { messageOf, throwIfAborted } from './errors.ts'
import type { Event, ToolCall } from './events.ts'
import { applyEvent, initialTurnState } from './reducer.ts'

/** What a tool's code receives besides its input. */
export type ToolContext = {
  /** Aborted when the caller aborts: long-running tools should stop. */
  signal: AbortSignal | undefined
  /** The call being answered. */
  call: ToolCall
}

/** Answers one tool call. What it returns is sent to the model; what it throws is sent as an error. */
export type ToolExecutor = (call: ToolCall, context: ToolContext) => unknown

/** Options of {@link toolLoop}: the call options of every step, plus how to answer the calls. */
export type ToolLoopOptions = CallOptions & {
  /** Answers the calls. Without it the loop makes one call and ends. */
  execute?: ToolExecutor | undefined
  /** Most model calls to make. @defaultValue {@link DEFAULT_MAX_STEPS} */
  maxSteps?: number | undefined
}

/** The most model calls a tool loop makes when not told: `runTools`, `Chat` and the relay's. */
export const DEFAULT_MAX_STEPS = 8

/** What {@link toolLoop} yields: every event of every step, and each step's tool results. */
export type ToolLoopEvent =
  | Event
  /**
   * The answers to the calls of `turn`, appended after it. At `maxSteps`, the calls of the last
   * turn are answered as not run, and the loop ends.
   */
  | { type: 'tool-results'; turn: AssistantTurn; results: ToolTurn }

/** What {@link toolLoop} returns. */
export type ToolLoopResult = {
  /** The conversation with every step's assistant turn and tool results appended. */
  conversation: Conversation
  /** The last assistant turn. */
  turn: AssistantTurn
  /** How many model calls were made. */
  steps: number
}

/**
 * The tool loop, once for `runTools` and `Chat`: streams a call, appends its assistant turn (with
 * its items, so thinking stays ahead of tool use), runs the turn's calls in parallel with
 * `execute`, appends the tool turn, and calls the model again, until a turn asks for no tool or
 * `maxSteps` calls were made. It fails as the stream fails, and throws `aborted` when the signal
 * aborts while tools run (a caller that keeps the conversation answers those calls with
 * {@link stoppedResults}, as `Chat` does).
 */
export async function* toolLoop(
  adapter: Adapter,
  conversation: Conversation,
  options: ToolLoopOptions,
): AsyncGenerator<ToolLoopEvent, ToolLoopResult, undefined> {
  const { execute, maxSteps = DEFAULT_MAX_STEPS, ...callOptions } = options
  let turns: Turn[] = conversation.turns
  for (let step = 1; ; step++) {
    let state = initialTurnState
    for await (const event of adapter.stream({ ...conversation, turns }, callOptions)) {
      state = applyEvent(state, event)
      yield event
    }
    // guardStream makes every adapter end with done or throw; this only guards hand-made adapters.
    const turn = state.turn
    if (!turn) throw new TypeError(`${adapter.provider}: stream ended without 'done'`)
    turns = [...turns, turn]
    const calls = turn.toolCalls ?? []
    if (!execute || !calls.length) {
      return { conversation: { ...conversation, turns }, turn, steps: step }
    }
    // At `maxSteps` the model still asks for tools but may not be called again: its calls are
    // answered as not run, so the conversation stays valid to continue (a call without a result
    // is refused upstream).
    const last = step >= maxSteps
    const results = last
      ? notRunResults(calls, maxSteps)
      : await executeToolCalls(calls, callOptions.signal, execute)
    turns = [...turns, results]
    yield { type: 'tool-results', turn, results }
    if (last) return { conversation: { ...conversation, turns }, turn, steps: step }
  }
}

/**
 * Runs the calls of one step in parallel and collects a tool turn with one result per call, in
 * call order. A call that throws becomes an `isError` result holding the error's message. What a
 * tool returns is committed as JSON (see {@link jsonOutput}), so a conversation always survives
 * `JSON.stringify` and the relay. Throws an `aborted` error when `signal` aborted before or while
 * the calls ran.
 */
export async function executeToolCalls(
  calls: readonly ToolCall[],
  signal: AbortSignal | undefined,
  execute: ToolExecutor,
): Promise<ToolTurn> {
  throwIfAborted(signal)
  const results = await Promise.all(
    calls.map(async (call) => {
      try {
        return resultOf(call, jsonOutput(await execute(call, { signal, call })))
      } catch (error) {
        // The tool threw, or returned what JSON cannot carry: the model is told why.
        return resultOf(call, messageOf(error), true)
      }
    }),
  )
  // Again: a tool may have aborted it while the calls ran.
  throwIfAborted(signal)
  return { role: 'tool', results }
}

/** The result that answers `call`. */
function resultOf(call: ToolCall, output: unknown, isError?: true): ToolResult {
  return { callId: call.id, name: call.name, output, ...(isError && { isError }) }
}

/**
 * A tool's return value as the JSON a conversation holds: a copy (a tool that keeps and changes
 * its object later changes nothing committed), and `undefined` as `null` (a tool with nothing to
 * say). A value JSON cannot carry (a function, a symbol, a BigInt, an object that refers to
 * itself) throws a `TypeError` that says why, to send as an error result.
 */
export function jsonOutput(value: unknown): unknown {
  try {
    const text = JSON.stringify(value ?? null)
    if (text === undefined) throw new TypeError(`a ${typeof value} is not JSON`)
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new TypeError(`The tool's result cannot be sent: ${messageOf(error)}`, { cause: error })
  }
}

/** Every call of a turn answered as stopped while its tool ran: the conversation stays valid to send. */
export function stoppedResults(calls: readonly ToolCall[]): ToolTurn {
  return answerAll(calls, 'Stopped before the tool finished.')
}

/** Every call of a turn answered as not run: the loop made its `maxSteps` model calls. */
export function notRunResults(calls: readonly ToolCall[], maxSteps: number): ToolTurn {
  return answerAll(
    calls,
    `Not run: the limit of ${maxSteps} model calls was reached before this call.`,
  )
}

/** A tool turn that answers every call with the same error. */
function answerAll(calls: readonly ToolCall[], output: string): ToolTurn {
  return { role: 'tool', results: calls.map((call) => resultOf(call, output, true)) }
}
