import type { Interactions } from '@google/genai'
import type {
  AssistantTurn,
  OpaqueItems,
  ToolTurn,
  Turn,
  UserTurn,
} from '../../../core/conversation.ts'
import { isRecord } from '../../../kit/json.ts'
import { encodeTurns, type ReplayTag } from '../../../kit/replay.ts'

/** One step of the `input` list: the same type the stream's steps are read as. */
export type Step = Interactions.Step

/**
 * The `input` steps of a request: the whole conversation, since the adapter keeps nothing on the
 * server. A turn this model made under the same thinking mode is sent back as its steps, verbatim
 * (each thought step with its signature, in the order they came, so every signature stays on the
 * step it came with); any other assistant turn is rebuilt from its text and tool calls, without
 * reasoning. Tool results become `function_result` steps that name their call by its id, which is
 * the id of the `function_call` step the adapter read or wrote.
 */
export function encodeInput(turns: readonly Turn[], tag: ReplayTag): Step[] {
  return encodeTurns<Step[]>(turns, tag, {
    user: (turn) => [userStep(turn)],
    tool: (turn) => resultSteps(turn),
    replay: (items, turn) => replaySteps(items) ?? reencode(turn),
    reencode,
  }).flat()
}

function userStep(turn: UserTurn): Step {
  if (typeof turn.content === 'string')
    return { type: 'user_input', content: [{ type: 'text', text: turn.content }] }
  const content: Interactions.Content[] = turn.content.map((part) => {
    if (part.type === 'text') return { type: 'text', text: part.text }
    if ('data' in part) return { type: 'image', data: part.data, mime_type: part.mediaType }
    return { type: 'image', uri: part.url }
  })
  return { type: 'user_input', content }
}

function resultSteps(turn: ToolTurn): Step[] {
  return turn.results.map((result) => ({
    type: 'function_result',
    call_id: result.callId,
    name: result.name,
    // Strings go as they are, anything else as JSON: an object would be read as a result record
    // and a list as content blocks.
    result: typeof result.output === 'string' ? result.output : JSON.stringify(result.output),
    ...(result.isError === true ? { is_error: true } : {}),
  }))
}

/**
 * The stored steps, or undefined when the items hold none (then the turn is rebuilt). Records that
 * are not steps (no `type`: the continuation token, the interaction id) stay out.
 */
function replaySteps(items: OpaqueItems): Step[] | undefined {
  const steps = items.data.filter(
    (record) => isRecord(record) && typeof record['type'] === 'string',
  )
  // Each is a step exactly as the stream gave it; the SDK's `Step` type describes them.
  return steps.length === 0 ? undefined : (steps as Step[])
}

function reencode(turn: AssistantTurn): Step[] {
  const steps: Step[] = []
  if (turn.text !== '')
    steps.push({ type: 'model_output', content: [{ type: 'text', text: turn.text }] })
  for (const call of turn.toolCalls ?? []) {
    // Arguments are an object only; anything else is wrapped so nothing is lost.
    const args = isRecord(call.input)
      ? call.input
      : call.input === undefined || call.input === null
        ? {}
        : { value: call.input }
    steps.push({ type: 'function_call', id: call.id, name: call.name, arguments: args })
  }
  return steps
}
