import type { Adapter, CallOptions, JSONSchema, ToolSpec } from './adapter.ts'
import type { AssistantTurn, Conversation, ToolTurn } from './conversation.ts'
import type { Event } from './events.ts'
import { toolLoop, type ToolContext, type ToolExecutor, type ToolLoopResult } from './tool-loop.ts'

export { executeToolCalls, type ToolContext } from './tool-loop.ts'

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
export type RunToolsResult = ToolLoopResult

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
  const { tools, onEvent, onStep, ...callOptions } = options
  const specs: ToolSpec[] = Object.entries(tools).map(([name, tool]) => ({
    name,
    description: tool.description,
    parameters: tool.parameters,
  }))
  const loop = toolLoop(adapter, conversation, {
    ...callOptions,
    tools: specs,
    execute: toolExecutor(tools),
  })
  let answered: AssistantTurn | undefined
  for (;;) {
    const next = await loop.next()
    if (next.done === true) {
      // The last step has told onStep already when its calls were answered (at maxSteps).
      if (next.value.turn !== answered) onStep?.({ turn: next.value.turn, results: undefined })
      return next.value
    }
    const event = next.value
    if (event.type !== 'tool-results') onEvent?.(event)
    else if (!event.stopped) {
      answered = event.turn
      onStep?.({ turn: event.turn, results: event.results })
    }
  }
}

/**
 * The executor that answers a call with the tool of its name. A name that is not among `tools`
 * throws, so the model reads which tools exist.
 */
export function toolExecutor(tools: { [name: string]: Tool<never> }): ToolExecutor {
  return (call, context) => {
    const tool = tools[call.name]
    if (tool === undefined) {
      throw new Error(`Unknown tool '${call.name}'. Known tools: ${Object.keys(tools).join(', ')}`)
    }
    return tool.execute(call.input as never, context)
  }
}
