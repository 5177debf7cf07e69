import type { ToolChoice, ToolSpec } from '../../core/adapter.ts'

/** The tools the mock calls for one user message, and why (for its thinking). */
export type ToolChoiceResult = { tools: ToolSpec[]; why: string }

/**
 * Which of the offered tools the mock calls for the user's `text`: the first offered tool the text
 * names (see {@link namesTool}), as a model given one obvious tool would. `toolChoice` rules over
 * it: `'none'` calls none, `{ name }` exactly that tool (none when it is not offered), and
 * `'required'` the named tool or else the first offered one. (A scripted mock calls several tools
 * in one step.)
 */
export function chooseTools(
  offered: readonly ToolSpec[],
  choice: ToolChoice | undefined,
  text: string,
): ToolChoiceResult {
  const tools = [...new Map(offered.map((tool) => [tool.name, tool])).values()]
  const named = tools.filter((tool) => namesTool(text, tool.name))
  const list = (specs: readonly ToolSpec[]) =>
    specs
      .map((tool) => tool.name)
      .join(', ')
      .replace(/, ([^,]*)$/, ' and $1')
  if (tools.length === 0) return { tools: [], why: 'No tools are offered, so I call none.' }
  if (choice === 'none') {
    const names = named.length > 0 ? `The message names ${list(named)}, but t` : 'T'
    return { tools: [], why: `${names}he tool choice is 'none', so I call none.` }
  }
  if (typeof choice === 'object') {
    const tool = tools.find((t) => t.name === choice.name)
    return tool === undefined
      ? {
          tools: [],
          why: `The tool choice names ${choice.name}, which is not offered: I call none.`,
        }
      : { tools: [tool], why: `The tool choice names ${tool.name}, so I call it.` }
  }
  const first = named[0]
  if (first !== undefined) {
    const also = named.length > 1 ? ` (and ${list(named.slice(1))}; one call is enough)` : ''
    return { tools: [first], why: `The message names ${first.name}${also}, so I call it.` }
  }
  if (choice === 'required') {
    return {
      tools: [tools[0]!],
      why: `The message names no tool, but one is required, so I call the first offered, ${tools[0]!.name}.`,
    }
  }
  return { tools: [], why: `The message names none of the offered tools (${list(tools)}).` }
}

/**
 * Whether `text` names the tool `name`: as a whole word, case aside, with its parts joined by `_`,
 * `-`, spaces or nothing. So `get_weather` is named by "get_weather", "get-weather", "Get weather"
 * and "getweather" (and `getWeather` by the same), but not by "weather" or "get_weather_now".
 */
export function namesTool(text: string, name: string): boolean {
  const pattern = toolPattern(name)
  return pattern !== undefined && new RegExp(pattern, 'iu').test(text)
}

/** `text` with every place that names the tool `name` taken out, its spaces tidied. */
export function withoutTool(text: string, name: string): string {
  const pattern = toolPattern(name)
  const out = pattern === undefined ? text : text.replace(new RegExp(pattern, 'giu'), ' ')
  return out
    .replace(/\s+([,.:;!?])/g, '$1')
    .replace(/\s+/g, ' ')
    .replace(/^[\s,.:;!?-]+/, '')
    .trim()
}

/** The pattern of {@link namesTool}: the name's parts (split at `_`, `-`, spaces and camelCase). */
function toolPattern(name: string): string | undefined {
  const parts = name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .split(/[\s_-]+/)
    .filter((part) => part !== '')
    .map((part) => part.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'))
  if (parts.length === 0) return undefined
  return `(?<![\\p{L}\\p{N}_])${parts.join('[\\s_-]*')}(?![\\p{L}\\p{N}_])`
}
