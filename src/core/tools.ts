import type { Adapter, CallOptions, JSONSchema, ToolSpec } from './adapter.ts'
import { complete } from './complete.ts'
import type { AssistantTurn, Conversation, ToolResult, ToolTurn, Turn } from './conversation.ts'
import { abortedError } from './errors.ts'
import type { Event, ToolCall } from './events.ts'

/** What a tool's `execute` receives besides its input. */
export type ToolContext = {
  /** Aborted when the caller aborts: long-running tools should stop. */
  signal: AbortSignal | undefined
  /** The call being answered. */
  call: ToolCall
}

/** A tool the model may call, with the code that runs it. */
export type Tool<Input = unknown> = {
  description?: string | undefined
  /** JSON Schema of the input. */
  parameters: JSONSchema
  /** Runs the tool. What it returns is sent to the model; what it throws is sent as an error. */
  execute(input: Input, context: ToolContext): unknown
}

/** Options of {@link runTools}. */
export type RunToolsOptions = Omit<CallOptions, 'tools'> & {
  /** The tools, by name. */
  tools: { [name: string]: Tool<never> }
  /** Most model calls to make. @defaultValue 8 */
  maxSteps?: number | undefined
  /** Sees every event of every step. */
  onEvent?: ((event: Event) => void) | undefined
  /** Called after each step with the turns it added. */
  onStep?: ((step: { turn: AssistantTurn; results: ToolTurn | undefined }) => void) | undefined
}

/** What {@link runTools} ends with. */
export type RunToolsResult = {
  /** The conversation with every step's assistant turn and tool results appended. */
  conversation: Conversation
  /** The last assistant turn. */
  turn: AssistantTurn
  /** How many model calls were made. */
  steps: number
}

/**
 * Answers tool calls with `execute` until the model stops asking, or `maxSteps` calls were made.
 * The calls of one step run in parallel; a tool that throws, and a tool name that is not known,
 * are answered as `isError` results so the model can recover. Each step's assistant turn keeps its
 * items (thinking stays ahead of tool use, as providers require).
 *
 * @example
 * ```ts
 * const { turn } = await runTools(adapter, conversation, {
 *   tools: { weather: { parameters: { type: 'object' }, execute: ({ city }) => lookUp(city) } },
 * })
 * ```
 */
export async function runTools(
  adapter: Adapter,
  conversation: Conversation,
  options: RunToolsOptions,
): Promise<RunToolsResult> {
  const { tools, maxSteps = 8, onStep, ...callOptions } = options
  const specs: ToolSpec[] = Object.entries(tools).map(([name, tool]) => ({
    name,
    description: tool.description,
    parameters: tool.parameters,
  }))
  const turns: Turn[] = [...conversation.turns]
  for (let step = 1; ; step++) {
    const turn = await complete(
      adapter,
      { ...conversation, turns },
      { ...callOptions, tools: specs },
    )
    turns.push(turn)
    const calls = turn.toolCalls ?? []
    if (calls.length === 0 || step >= maxSteps) {
      onStep?.({ turn, results: undefined })
      return { conversation: { ...conversation, turns }, turn, steps: step }
    }
    const results = await executeToolCalls(calls, callOptions.signal, (call, context) => {
      const tool = tools[call.name]
      if (tool === undefined) {
        throw new Error(
          `Unknown tool '${call.name}'. Known tools: ${Object.keys(tools).join(', ')}`,
        )
      }
      return tool.execute(call.input as never, context)
    })
    turns.push(results)
    onStep?.({ turn, results })
  }
}

/**
 * Runs the calls of one step in parallel and collects a tool turn with one result per call, in
 * call order. A call that throws becomes an `isError` result holding the error's message.
 */
export async function executeToolCalls(
  calls: readonly ToolCall[],
  signal: AbortSignal | undefined,
  execute: (call: ToolCall, context: ToolContext) => unknown,
): Promise<ToolTurn> {
  if (signal?.aborted === true) throw abortedError(undefined, signal.reason)
  const results = await Promise.all(
    calls.map(async (call): Promise<ToolResult> => {
      try {
        const output = await execute(call, { signal, call })
        return { callId: call.id, name: call.name, output }
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        return { callId: call.id, name: call.name, output: message, isError: true }
      }
    }),
  )
  if ((signal as AbortSignal | undefined)?.aborted === true)
    throw abortedError(undefined, signal?.reason)
  return { role: 'tool', results }
}
