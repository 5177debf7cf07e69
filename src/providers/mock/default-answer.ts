import type { CallOptions, ToolSpec } from '../../core/adapter.ts'
import type { Conversation, ToolResult, ToolTurn, Turn } from '../../core/conversation.ts'
import { chooseTools, withoutTool } from './choose-tools.ts'
import type { MockResponse } from './index.ts'
import { toolArguments } from './tool-arguments.ts'

/** What the unscripted answer takes besides the call. */
export type DefaultAnswerSettings = {
  /** Repeats the echo this many times. */
  repeat: number
  /** The time a `date-time` argument holds. */
  now: Date
}

/** The most characters of a quote (of the question, or of a tool's output). */
const QUOTE_LENGTH = 200

/** The most tool names the hint lists. */
const LISTED_TOOLS = 10

/**
 * The mock's answer when it has no script:
 * - after a tool turn, a quote of each result (`The clock tool returned "…".`), an error said as
 *   one;
 * - when the call offers tools and the last turn is the user's, a call of each tool that
 *   {@link chooseTools} picks, with arguments from the tool's schema and the message
 *   ({@link toolArguments}), its thinking saying which and why;
 * - a question that mentions "markdown" or "demo": a tour in markdown, after a second or so of
 *   thinking;
 * - anything else: a quote of the question.
 * When tools are offered (and the tool choice is not `'none'`) but none is called, the answer ends
 * by saying how to ask for one.
 */
export function defaultAnswer(
  conversation: Conversation,
  options: CallOptions,
  settings: DefaultAnswerSettings,
): MockResponse {
  const last = conversation.turns.at(-1)
  if (last?.role === 'tool') return quoteResults(last)
  const question = userText(conversation.turns)
  const plain = /\b(markdown|demo)\b/i.test(question) ? TOUR : echo(question, settings.repeat)
  const offered = options.tools ?? []
  if (last?.role !== 'user' || offered.length === 0) return plain
  const { tools, why } = chooseTools(offered, options.toolChoice, question)
  if (tools.length > 0)
    return callTools(tools, why, question, conversation.turns.length, settings.now)
  const hint = options.toolChoice === 'none' ? '' : `\n\n${askFor(offered)}`
  return {
    ...plain,
    thinking: `${plain.thinking ?? ''} ${why}`.trim(),
    text: `${plain.text ?? ''}${hint}`,
  }
}

/** Calls `tools` in one step; ids are unique in the conversation (the answer's turn index, then i). */
function callTools(
  tools: readonly ToolSpec[],
  why: string,
  question: string,
  turnIndex: number,
  now: Date,
): MockResponse {
  const toolCalls = tools.map((tool, i) => ({
    id: `call_${turnIndex}_${i}`,
    name: tool.name,
    input: toolArguments(tool.parameters, { text: withoutTool(question, tool.name), now }),
  }))
  const inputs = toolCalls.map((call) => `${call.name} ${clip(json(call.input))}`).join(', ')
  return {
    thinking: `${why} The arguments, from each schema and the message: ${inputs}.`,
    toolCalls,
  }
}

/** The answer to a tool turn: each result quoted, in order. */
function quoteResults(turn: ToolTurn): MockResponse {
  const count = turn.results.length
  const names = [...new Set(turn.results.map((result) => result.name))].join(', ')
  const what = count === 1 ? 'a tool result' : `${count} tool results`
  return {
    thinking: `The last turn holds ${what} (${names}). I will quote ${count === 1 ? 'it' : 'them'}.`,
    text: count === 0 ? 'No tool results came back.' : turn.results.map(quote).join(' '),
  }
}

function quote(result: ToolResult): string {
  const output = clip(json(result.output))
  return result.isError === true
    ? `The ${result.name} tool returned an error: ${output}.`
    : `The ${result.name} tool returned ${output}.`
}

/** How to make the mock call a tool, naming the offered ones. */
function askFor(tools: readonly ToolSpec[]): string {
  const names = [...new Set(tools.map((tool) => tool.name))]
  const listed =
    names.slice(0, LISTED_TOOLS).join(', ') + (names.length > LISTED_TOOLS ? ', …' : '')
  return `Mention a tool by name (${listed}) and I will call it.`
}

function echo(question: string, repeat: number): MockResponse {
  const sentence = `You said: "${clip(question)}". I am thinkwire's offline mock model, so this answer is scripted. `
  return {
    thinking: `The user wrote ${question.length} characters. I will quote them back and say what I am.`,
    text: sentence.repeat(Math.max(1, repeat)).trimEnd(),
  }
}

/** The text of the last user turn (an image as `[image]`), or '' when there is none. */
function userText(turns: readonly Turn[]): string {
  const last = turns.findLast((turn) => turn.role === 'user')
  if (last === undefined) return ''
  if (typeof last.content === 'string') return last.content
  return last.content.map((part) => (part.type === 'text' ? part.text : '[image]')).join(' ')
}

/** A value as JSON (`nothing` for undefined): a conversation is JSON, tool outputs included. */
function json(value: unknown): string {
  return JSON.stringify(value) ?? 'nothing'
}

/** `text` cut to {@link QUOTE_LENGTH} characters (whole code points), with `…` when cut. */
function clip(text: string): string {
  const characters = Array.from(text)
  return characters.length > QUOTE_LENGTH ? `${characters.slice(0, QUOTE_LENGTH).join('')}…` : text
}

/** The answer to a question about markdown or the demo: what a chat UI can show, in markdown. */
const TOUR: MockResponse = {
  thinking:
    'The user wants to see what the demo can do. I will think for a moment, so the thinking ' +
    'lane has something to show (and Stop has something to stop), then answer in markdown: a ' +
    'list, a code block and a table.',
  thinkingMs: 1500,
  chunkSize: 16,
  text: [
    'Here is what the demo shows while an answer streams:',
    '',
    '1. **Thinking** arrives live in its own lane, and folds to *Thought for N s* when the answer starts.',
    '2. **Stop** (or `Esc`) keeps what arrived; **Regenerate** asks again and keeps this answer until the new one is complete.',
    "3. The conversation, with each model's opaque reasoning state, survives a reload.",
    '',
    'The same stream, from code:',
    '',
    '```ts',
    "import { relay } from 'thinkwire/client'",
    '',
    "const adapter = relay({ url: '', model: 'mock/echo' })",
    'for await (const event of adapter.stream(conversation)) {',
    "  if (event.type === 'text') print(event.text)",
    '}',
    '```',
    '',
    '| event | carries |',
    '| --- | --- |',
    '| `thinking` | visible reasoning |',
    '| `text` | the answer |',
    '| `done` | the whole turn, with its usage |',
    '',
    'Ask anything else and the mock quotes it back.',
  ].join('\n'),
}
