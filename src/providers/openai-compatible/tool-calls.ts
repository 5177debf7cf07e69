import { isRecord, type JsonRecord } from '../../kit/json.ts'

/** A tool call as assembled from its streamed fragments, arguments still the raw JSON text. */
export type AssembledCall = {
  id: string
  name: string
  arguments: string
  /**
   * The server's `extra_content` on the call, as it sent it (Gemini's endpoint carries the call's
   * `google.thought_signature` there); it goes back on the call when the turn is replayed.
   */
  extraContent?: JsonRecord | undefined
}

type Draft = {
  id: string | undefined
  name: string
  arguments: string
  extraContent?: JsonRecord | undefined
}

/**
 * Assembles streamed `tool_calls` fragments. Fragments are matched by `index`, except that a new
 * non-empty `id` at an index whose call has another id starts a new call there (Gemini's endpoint
 * and Ollama send every call at index 0); a server that sends no index starts a new call on a new
 * id and otherwise continues the last one. An `id` or `name` repeated on later fragments is not
 * appended, an empty id counts as none, arguments sent as an object (not a string) are
 * serialized, and the last `extra_content` object of a call is kept.
 */
export function createToolCallAssembler(makeId: (position: number) => string): {
  add(fragments: unknown[]): void
  calls(): AssembledCall[]
} {
  const calls: Draft[] = []
  const byIndex = new Map<number, Draft>()

  const start = (): Draft => {
    const call: Draft = { id: undefined, name: '', arguments: '' }
    calls.push(call)
    return call
  }

  /** The call a fragment with this index and id belongs to: one under way, or a new one. */
  const callFor = (index: unknown, id: string | undefined): Draft => {
    if (typeof index === 'number') {
      const current = byIndex.get(index)
      if (
        current !== undefined &&
        (id === undefined || current.id === undefined || current.id === id)
      )
        return current
      const call = start()
      byIndex.set(index, call)
      return call
    }
    const last = calls.at(-1)
    return last !== undefined && (id === undefined || id === last.id) ? last : start()
  }

  return {
    add(fragments) {
      for (const fragment of fragments) {
        if (!isRecord(fragment)) continue
        const id =
          typeof fragment['id'] === 'string' && fragment['id'] !== '' ? fragment['id'] : undefined
        const fn = isRecord(fragment['function']) ? fragment['function'] : {}
        const call = callFor(fragment['index'], id)
        call.id ??= id
        if (typeof fn['name'] === 'string' && fn['name'] !== '' && call.name === '')
          call.name = fn['name']
        const args = fn['arguments']
        if (typeof args === 'string') call.arguments += args
        else if (isRecord(args)) call.arguments += JSON.stringify(args)
        const extra = fragment['extra_content']
        if (isRecord(extra)) call.extraContent = extra
      }
    },
    calls: () =>
      calls.map((call, position) => {
        const assembled: AssembledCall = {
          id: call.id ?? makeId(position),
          name: call.name,
          arguments: call.arguments,
        }
        if (call.extraContent !== undefined) assembled.extraContent = call.extraContent
        return assembled
      }),
  }
}

/**
 * The arguments of a call, parsed. Empty arguments are `{}`. Arguments that are not valid JSON
 * are passed on as the raw string, with a warning, so a tool loop can tell the model what was
 * wrong instead of losing the whole turn.
 */
export function parseArguments(call: AssembledCall, warnings: string[]): unknown {
  if (call.arguments.trim() === '') return {}
  try {
    return JSON.parse(call.arguments) as unknown
  } catch {
    warnings.push(
      `tool call ${call.id} (${call.name}): its arguments are not valid JSON; passed on as a string`,
    )
    return call.arguments
  }
}

/**
 * The calls of a turn that ended with `finishReason`, without the one it cut off. When the output
 * limit (`length`), a content filter or a refusal ends the turn, the call being streamed is the
 * last one, and its arguments may stop half-way: when they are not a complete JSON value (empty
 * included, since the name came but its arguments did not), the call is dropped with a warning,
 * so it is neither run nor replayed. The calls before it are complete and stay.
 */
export function withoutCutCall(
  calls: AssembledCall[],
  finishReason: string | undefined,
  refused: boolean,
  warnings: string[],
): AssembledCall[] {
  const cause =
    finishReason === 'length'
      ? 'the output limit'
      : finishReason === 'content_filter'
        ? 'the content filter'
        : refused
          ? 'a refusal'
          : undefined
  const last = calls.at(-1)
  if (cause === undefined || last === undefined || isJson(last.arguments)) return calls
  warnings.push(
    `tool call ${last.id} (${last.name}) dropped: ${cause} cut off its arguments, so it is neither run nor replayed`,
  )
  return calls.slice(0, -1)
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
