import type { Adapter, CallOptions, JSONSchema, ToolSpec } from './adapter.ts'
import type { AssistantTurn, Conversation, ToolTurn } from './conversation.ts'
import type { Event } from './events.ts'
import { formatIssuePath, isStandardSchema, type StandardSchemaV1 } from './standard-schema.ts'
import { toolLoop, type ToolContext, type ToolExecutor, type ToolLoopResult } from './tool-loop.ts'

export { executeToolCalls, type ToolContext } from './tool-loop.ts'

/** What a tool's input is described by: a JSON Schema, or a Standard Schema (zod, valibot, arktype). */
export type ToolParameters = JSONSchema | StandardSchemaV1

/** The input a tool's code gets: a Standard Schema's output type, else `unknown`. */
export type ToolInput<Parameters> =
  Parameters extends StandardSchemaV1<unknown, infer Output> ? Output : unknown

/** A tool the model may call, with the code that runs it. */
export type Tool<Parameters extends ToolParameters = ToolParameters> = {
  description?: string | undefined
  /**
   * The input's schema. A Standard Schema also validates each call's input before `execute` runs
   * (an invalid input is answered to the model as an error naming the path at fault) and is sent
   * to the provider as its JSON Schema.
   */
  parameters: Parameters
  /** Runs the tool. What it returns is sent to the model; what it throws is sent as an error. */
  execute(input: ToolInput<Parameters>, context: ToolContext): unknown
}

/** Options of {@link runTools}: `tools` by name, each typed by its own `parameters`. */
export type RunToolsOptions<
  Tools extends { [name: string]: ToolParameters } = { [name: string]: ToolParameters },
> = Omit<CallOptions, 'tools'> & {
  /** The tools, by name. */
  tools: { [Name in keyof Tools]: Tool<Tools[Name]> }
  /** Most model calls to make. @defaultValue 8 (`DEFAULT_MAX_STEPS`) */
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
 *   tools: { weather: { parameters: z.object({ city: z.string() }), execute: ({ city }) => lookUp(city) } },
 * })
 * ```
 */
export async function runTools<Tools extends { [name: string]: ToolParameters }>(
  adapter: Adapter,
  conversation: Conversation,
  options: RunToolsOptions<Tools>,
): Promise<RunToolsResult> {
  const { tools, onEvent, onStep, ...callOptions } = options
  const specs: ToolSpec[] = Object.entries<Tool>(tools).map(([name, tool]) => ({
    name,
    description: tool.description,
    parameters: jsonSchemaOf(tool.parameters, name),
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
    else {
      answered = event.turn
      onStep?.({ turn: event.turn, results: event.results })
    }
  }
}

/**
 * The executor that answers a call with the tool of its name. A name that is not among `tools`
 * throws, so the model reads which tools exist; so does an input its Standard Schema refuses.
 */
export function toolExecutor(tools: { [name: string]: Tool }): ToolExecutor {
  return async (call, context) => {
    const tool = Object.hasOwn(tools, call.name) ? tools[call.name] : undefined
    if (tool === undefined) {
      throw new Error(`Unknown tool '${call.name}'. Known tools: ${Object.keys(tools).join(', ')}`)
    }
    const parameters = tool.parameters
    if (!isStandardSchema(parameters)) return tool.execute(call.input, context)
    const checked = await parameters['~standard'].validate(call.input)
    if (checked.issues !== undefined) {
      const issue = checked.issues[0]
      const where = issue === undefined ? '' : ` at ${formatIssuePath(issue)}: ${issue.message}`
      throw new Error(`Invalid input for tool '${call.name}'${where}`)
    }
    return tool.execute(checked.value, context)
  }
}

/** The JSON Schema sent for a tool: its own, or its Standard Schema's input as JSON Schema. */
function jsonSchemaOf(parameters: ToolParameters, name: string): JSONSchema {
  if (!isStandardSchema(parameters)) return parameters
  const convert = parameters['~standard'].jsonSchema
  const schema = (convert?.input ?? convert?.output)?.({ target: 'draft-2020-12' })
  if (schema === undefined) {
    throw new TypeError(
      `tool '${name}': its schema library cannot give a JSON Schema; pass a JSON Schema as parameters`,
    )
  }
  return schema
}
