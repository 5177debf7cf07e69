import type { JSONSchema, ToolSpec } from '../../core/adapter.ts'
import type { ToolResult } from '../../core/conversation.ts'
import { messageOf } from '../../core/errors.ts'
import type { ToolCall } from '../../core/events.ts'
import { jsonOutput } from '../../core/tool-loop.ts'
import { redact } from '../../kit/redact.ts'

/** What a server tool's code receives besides its input. */
export type ServerToolContext = {
  /** Aborted when the loop is stopped (from any tab) or its conversation deleted: stop then. */
  signal: AbortSignal
  /** The durable conversation whose loop made the call. */
  conversationId: string
}

/**
 * A tool the relay runs itself, inside a durable conversation's loop (DESIGN §13): a message
 * names it in `serverTools`, and the model's calls to it are answered on the server, with no
 * browser attached.
 */
export type ServerTool = {
  /** What the model reads about it. */
  description?: string | undefined
  /** JSON Schema of its input (an object schema), sent to the model as it is. */
  parameters: JSONSchema
  /**
   * Runs it. What it returns (as JSON) is the result the model reads; what it throws is sent as
   * an error result, its message with anything like a credential taken out.
   */
  execute(input: unknown, context: ServerToolContext): unknown
  /**
   * Whether a call waits for a person's approval before it runs (a function decides per input;
   * one that throws asks for approval). @defaultValue false
   */
  needsApproval?: boolean | ((input: unknown) => boolean) | undefined
}

/** The server tools a relay offers, by name. */
export type ServerTools = { readonly [name: string]: ServerTool }

/** The specs of the server tools `names` (each one of `tools`), as a model call offers them. */
export function serverToolSpecs(tools: ServerTools, names: readonly string[]): ToolSpec[] {
  const specs: ToolSpec[] = []
  for (const name of names) {
    const tool = serverTool(tools, name)
    if (tool !== undefined)
      specs.push({ name, description: tool.description, parameters: tool.parameters })
  }
  return specs
}

/** The server tool `name` of `tools`, undefined when there is none (never an inherited member). */
export function serverTool(tools: ServerTools, name: string): ServerTool | undefined {
  return Object.hasOwn(tools, name) ? tools[name] : undefined
}

/** Whether a call of `tool` with `input` waits for an approval. */
export function needsApproval(tool: ServerTool, input: unknown): boolean {
  const rule = tool.needsApproval
  if (typeof rule !== 'function') return rule === true
  try {
    return rule(input) === true
  } catch {
    // A rule that cannot say lets a person decide.
    return true
  }
}

/**
 * Runs one call of `tool`: its result, as `runTools` makes one (the output as JSON, a throw as an
 * error result), with the error's message redacted (a tool may quote a URL or a header).
 */
export async function runServerTool(
  tool: ServerTool,
  call: ToolCall,
  context: ServerToolContext,
): Promise<ToolResult> {
  try {
    const output = jsonOutput(await tool.execute(call.input, context))
    return { callId: call.id, name: call.name, output }
  } catch (error) {
    return errorResult(call, redact(messageOf(error)))
  }
}

/** The error result that answers `call` with `message`. */
export function errorResult(call: Pick<ToolCall, 'id' | 'name'>, message: string): ToolResult {
  return { callId: call.id, name: call.name, output: message, isError: true }
}
