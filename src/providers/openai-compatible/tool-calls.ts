import { isRecord } from '../../kit/json.ts'

/** A tool call as assembled from its streamed fragments, arguments still the raw JSON text. */
export type AssembledCall = { id: string; name: string; arguments: string }

/**
 * Assembles streamed `tool_calls` fragments. Fragments are matched by `index`; a server that
 * sends none starts a new call on a new id and otherwise continues the last one. An `id` or
 * `name` repeated on later fragments is not appended, an empty id counts as none, and arguments
 * sent as an object (not a string) are serialized.
 */
export function createToolCallAssembler(makeId: (position: number) => string): {
  add(fragments: unknown[]): void
  calls(): AssembledCall[]
} {
  const calls: { id: string | undefined; name: string; arguments: string }[] = []
  const byIndex = new Map<number, (typeof calls)[number]>()

  return {
    add(fragments) {
      for (const fragment of fragments) {
        if (!isRecord(fragment)) continue
        const id =
          typeof fragment['id'] === 'string' && fragment['id'] !== '' ? fragment['id'] : undefined
        const fn = isRecord(fragment['function']) ? fragment['function'] : {}
        let call: (typeof calls)[number] | undefined
        if (typeof fragment['index'] === 'number') {
          call = byIndex.get(fragment['index'])
          if (call === undefined) {
            call = { id: undefined, name: '', arguments: '' }
            byIndex.set(fragment['index'], call)
            calls.push(call)
          }
        } else {
          const last = calls.at(-1)
          call = last !== undefined && (id === undefined || id === last.id) ? last : undefined
          if (call === undefined) {
            call = { id: undefined, name: '', arguments: '' }
            calls.push(call)
          }
        }
        call.id ??= id
        if (typeof fn['name'] === 'string' && fn['name'] !== '' && call.name === '')
          call.name = fn['name']
        const args = fn['arguments']
        if (typeof args === 'string') call.arguments += args
        else if (isRecord(args)) call.arguments += JSON.stringify(args)
      }
    },
    calls: () =>
      calls.map((call, position) => ({
        id: call.id ?? makeId(position),
        name: call.name,
        arguments: call.arguments,
      })),
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
