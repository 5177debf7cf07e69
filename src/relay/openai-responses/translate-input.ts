import type { AssistantTurn, ToolTurn, Turn, UserPart } from '../../core/conversation.ts'
import type { ToolCall } from '../../core/events.ts'
import { sealedTurnFor, turnOfRecord } from '../sealed-turn.ts'
import * as v from '../validate-json.ts'
import { readSealedContent, type SealedContent } from './sealed-reasoning.ts'
import {
  argumentsOf,
  calledName,
  given,
  imageOfUrl,
  plainTurn,
  stringOrParts,
  textContent,
  userContent,
} from '../request-parts.ts'

/** Where one turn of the conversation came from in `input`, to name an input field at fault. */
export type TurnSource = {
  /** The input item the turn starts at; -1 for the user turn of an `input` given as a string. */
  at: number
  /** An assistant turn's first `message` item, which holds its text. */
  text?: number | undefined
  /** Each tool call's `function_call` item, or each result's `function_call_output` item. */
  parts?: number[] | undefined
  /** The `reasoning` item whose sealed record the assistant turn was rebuilt from. */
  sealed?: number | undefined
}

const ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning'] as const
const ROLES = ['user', 'assistant', 'system', 'developer'] as const

/** What `input` becomes. */
export type TranslatedInput = { turns: Turn[]; sources: TurnSource[] }

/** The items of one answer, as they come in `input`: its messages, calls and reasoning items. */
type Run = {
  at: number
  text: string
  /** The summaries of its reasoning items: the thinking the relay streamed. */
  thinking: string
  /** The first message item, or undefined when the run has none. */
  message: number | undefined
  calls: ToolCall[]
  callItems: number[]
  /** The first reasoning item holding a record of this relay, and the record. */
  sealed: { at: number; content: Extract<SealedContent, { type: 'items' | 'record' }> } | undefined
}

/**
 * The turns of a Responses `input`: each user message a user turn; each run of assistant
 * messages, `function_call` and `reasoning` items one assistant turn; each run of
 * `function_call_output` items one tool turn; system and developer messages go to `system`, in
 * order. A run that holds the sealed reasoning item the relay sent (in any place) becomes the turn
 * it sealed: its text, thinking (the reasoning summaries) and calls with the record's items and
 * seal, which the relay's seal check then holds to the turn it sealed. A record of an earlier
 * version holds the whole turn, taken when its text and tool calls are the run's; otherwise the
 * turn is built from its messages and calls, and `notes` says why its reasoning state was dropped.
 * Throws `Invalid` naming the input field at fault.
 */
export function translateInput(value: unknown, system: string[], notes: string[]): TranslatedInput {
  const items = stringOrParts(value, 'input', 'items')
  if (typeof items === 'string') {
    return { turns: [{ role: 'user', content: items }], sources: [{ at: -1 }] }
  }
  const turns: Turn[] = []
  const sources: TurnSource[] = []
  // Every earlier call, by id: an output names its call only by id, a tool result also by name.
  const calls = new Map<string, string>()
  let run: Run | undefined
  let toolTurn: { turn: ToolTurn; source: TurnSource } | undefined
  const endRun = () => {
    if (run === undefined) return
    const done = assistantTurn(run, notes)
    run = undefined
    if (done === undefined) return
    for (const call of done.turn.toolCalls ?? []) calls.set(call.id, call.name)
    turns.push(done.turn)
    sources.push(done.source)
  }
  for (let i = 0; i < items.length; i++) {
    const field = `input[${i}]`
    const item = v.record(items[i], field)
    const kind = itemKind(item, field)
    if (kind !== 'function_call_output') toolTurn = undefined
    if (kind === 'assistant' || kind === 'function_call' || kind === 'reasoning') {
      run ??= {
        at: i,
        text: '',
        thinking: '',
        message: undefined,
        calls: [],
        callItems: [],
        sealed: undefined,
      }
      addToRun(run, kind, item, i, notes)
      continue
    }
    endRun()
    switch (kind) {
      case 'system':
        system.push(textContent(v.own(item, 'content'), `${field}.content`, ['input_text']))
        break
      case 'user':
        turns.push(userContent(v.own(item, 'content'), `${field}.content`, userPart))
        sources.push({ at: i })
        break
      case 'function_call_output': {
        const callId = v.string(v.own(item, 'call_id'), `${field}.call_id`, { nonEmpty: true })
        const at = `${field}.call_id`
        const name = calledName(calls, callId, at, 'function_call of an earlier item')
        const output = textContent(v.own(item, 'output'), `${field}.output`, ['input_text'])
        // Consecutive outputs answer the calls of one answer: one tool turn.
        if (toolTurn === undefined) {
          toolTurn = { turn: { role: 'tool', results: [] }, source: { at: i, parts: [] } }
          turns.push(toolTurn.turn)
          sources.push(toolTurn.source)
        }
        toolTurn.turn.results.push({ callId, name, output })
        toolTurn.source.parts!.push(i)
        break
      }
    }
  }
  endRun()
  return { turns, sources }
}

type ItemKind = 'user' | 'assistant' | 'system' | Exclude<(typeof ITEM_TYPES)[number], 'message'>

function itemKind(item: v.JsonRecord, field: string): ItemKind {
  const type = v.own(item, 'type') ?? 'message'
  const known = v.oneOf(type, `${field}.type`, ITEM_TYPES)
  if (known !== 'message') return known
  const role = v.oneOf(v.own(item, 'role'), `${field}.role`, ROLES)
  return role === 'developer' ? 'system' : role
}

function addToRun(
  run: Run,
  kind: 'assistant' | 'function_call' | 'reasoning',
  item: v.JsonRecord,
  i: number,
  notes: string[],
): void {
  const field = `input[${i}]`
  switch (kind) {
    case 'assistant':
      run.message ??= i
      run.text += textContent(v.own(item, 'content'), `${field}.content`, [
        'output_text',
        'input_text',
        'refusal',
      ])
      return
    case 'function_call':
      run.calls.push(functionCall(item, field))
      run.callItems.push(i)
      return
    case 'reasoning': {
      run.thinking += textContent(given(item, 'summary'), `${field}.summary`, ['summary_text'])
      const content = readSealedContent(given(item, 'encrypted_content'))
      const dropped = (reason: string) =>
        notes.push(`${field}.encrypted_content dropped: ${reason}`)
      if (content.type === 'foreign') dropped('it is not a record of this relay')
      if (content.type === 'broken') dropped('its record does not decode')
      if (content.type !== 'items' && content.type !== 'record') return
      if (run.sealed !== undefined) dropped(`input[${run.sealed.at}] holds this answer's record`)
      else run.sealed = { at: i, content }
      return
    }
  }
}

/**
 * The assistant turn of a run: its text, thinking and calls with the sealed items (or, from an
 * earlier version's record, exactly the record when its text and tool calls are the run's), else
 * built from the run's messages and calls. A run of reasoning items alone, with no record to
 * stand for it, says nothing a provider can take: it is left out, with a note.
 */
function assistantTurn(
  run: Run,
  notes: string[],
): { turn: AssistantTurn; source: TurnSource } | undefined {
  const source: TurnSource = { at: run.at }
  if (run.message !== undefined) source.text = run.message
  if (run.callItems.length > 0) source.parts = run.callItems
  const plain = plainTurn(run.text, run.calls)
  const unsaid = run.message === undefined && run.calls.length === 0
  const fallback = () => {
    if (!unsaid) return { turn: plain, source }
    notes.push(`input[${run.at}] left out: reasoning items with no message or function_call`)
    return undefined
  }
  const { sealed } = run
  if (sealed === undefined) return fallback()
  const { content } = sealed
  if (content.type === 'items') {
    // The record holds the items alone: the seal says whether the run is the turn it sealed.
    const thinking = run.thinking === '' ? undefined : run.thinking
    const said = { text: run.text, thinking, toolCalls: plain.toolCalls, items: content.items }
    return { turn: turnOfRecord(said, plain), source: { ...source, sealed: sealed.at } }
  }
  const kept = sealedTurnFor(content.record, plain, {
    text: "the answer's output_text",
    toolCalls: "the answer's function_call items",
  })
  if (!kept.ok) {
    notes.push(`input[${sealed.at}].encrypted_content dropped: ${kept.reason}`)
    return fallback()
  }
  return { turn: kept.turn, source: { ...source, sealed: sealed.at } }
}

function userPart(value: unknown, field: string): UserPart {
  const part = v.record(value, field)
  const type = v.oneOf(v.own(part, 'type'), `${field}.type`, ['input_text', 'input_image'])
  if (type === 'input_text')
    return { type: 'text', text: v.string(v.own(part, 'text'), `${field}.text`) }
  const url = given(part, 'image_url')
  if (url === undefined && given(part, 'file_id') !== undefined)
    v.fail(`${field}.file_id`, 'is not supported: the relay keeps no files; send image_url')
  return imageOfUrl(v.string(url, `${field}.image_url`), `${field}.image_url`)
}

function functionCall(item: v.JsonRecord, field: string): ToolCall {
  return {
    id: v.string(v.own(item, 'call_id'), `${field}.call_id`, { nonEmpty: true }),
    name: v.string(v.own(item, 'name'), `${field}.name`),
    input: argumentsOf(
      v.string(v.own(item, 'arguments'), `${field}.arguments`),
      `${field}.arguments`,
    ),
  }
}
