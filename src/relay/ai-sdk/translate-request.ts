import type { Turn, UserPart, UserTurn } from '../../core/conversation.ts'
import type { FieldTable, WireCallOptions } from '../../core/wire.ts'
import type { Translation } from '../dialects.ts'
import * as v from '../validate-json.ts'
import { answered, assistantSteps, pushStep, shownOnly, typeOf } from './assistant-steps.ts'
import type { UiStep } from './encode.ts'
import { stepRecords } from './step-records.ts'
import type { TurnOrigin } from './rewrite-field.ts'
import { imageOfUrl } from '../request-parts.ts'
import { requestTranslator, type FieldUse, type Refusal } from '../request-translator.ts'

/** `/v1/chat`'s call options, taken under their own names from the app's `body`. */
const CALL_OPTIONS: FieldTable<WireCallOptions, 'mapped'> = {
  thinking: 'mapped',
  tools: 'mapped',
  toolChoice: 'mapped',
  maxTokens: 'mapped',
  temperature: 'mapped',
  stop: 'mapped',
  responseFormat: 'mapped',
  cache: 'mapped',
}

/**
 * Every top-level field the relay takes, for `checkFields`: the four that the AI SDK's
 * `DefaultChatTransport` (ai 6) writes around the app's `body` (the chat's `id`, `messages`,
 * `trigger`, `messageId`), and what the app's `body` may hold: `model` and `/v1/chat`'s call
 * options. (The tests check this list against what the transport sends.)
 */
export const UI_REQUEST_FIELDS: Readonly<Record<string, FieldUse>> = {
  id: 'ignored',
  messages: 'mapped',
  trigger: 'ignored',
  messageId: 'ignored',
  model: 'mapped',
  ...CALL_OPTIONS,
}

const ROLES = ['system', 'user', 'assistant'] as const
const TRIGGERS = ['submit-message', 'regenerate-message'] as const

/** An AI SDK chat request, translated into a `/v1/chat` body. */
export type TranslatedUiRequest = Translation & {
  /** Always: the route only streams. */
  stream: true
  /** Where each turn of `request.conversation` came from (see {@link rewriteUiField}). */
  origins: TurnOrigin[]
  /**
   * The assistant message the answer goes on with (the last message, after the app added its
   * tool outputs): its id, and its steps' records so far. Undefined when the answer is a new
   * message.
   */
  continues: { id: string; earlier: (UiStep | null)[] } | undefined
}

/**
 * Translates an AI SDK chat request (`POST /v1/ai-sdk/chat`: `{ id, messages, trigger,
 * messageId }` around the app's `body`) as every dialect does (see `Translation`). An assistant
 * message becomes one assistant turn per step (its `step-start` parts divide them),
 * each followed by a tool turn of its tool parts' outputs. A step whose record in the message's
 * `metadata.thinkwire.steps` holds the turn the relay sealed becomes that turn, items and seal
 * included, when the record's text and tool calls are the step's and it was made for the model
 * asked for; otherwise the step is built from its parts and a note says why its reasoning state
 * was dropped.
 */
export const translateUiRequest: (body: unknown) => TranslatedUiRequest | Refusal =
  requestTranslator(
    {
      name: `this route, which takes ${Object.keys(UI_REQUEST_FIELDS).join(', ')}`,
      fields: UI_REQUEST_FIELDS,
      bodyField: 'body',
    },
    translate,
  )

function translate(body: v.JsonRecord): TranslatedUiRequest {
  const options: Record<string, unknown> = {}
  for (const key of Object.keys(CALL_OPTIONS)) {
    if (Object.hasOwn(body, key)) options[key] = body[key]
  }
  for (const key of ['id', 'messageId'] as const) {
    const value = v.own(body, key)
    if (value !== undefined) v.string(value, key)
  }
  const trigger = v.own(body, 'trigger')
  if (trigger !== undefined) v.oneOf(trigger, 'trigger', TRIGGERS)

  const model = v.string(v.own(body, 'model'), 'model', { nonEmpty: true })
  const notes: string[] = []
  const messages = v.array(v.own(body, 'messages'), 'messages')
  if (messages.length === 0) v.fail('messages', 'must not be empty')
  const system: string[] = []
  const turns: Turn[] = []
  const origins: TurnOrigin[] = []
  let continues: TranslatedUiRequest['continues']
  for (let i = 0; i < messages.length; i++) {
    const at = `messages[${i}]`
    const message = v.record(messages[i], at)
    const role = v.oneOf(v.own(message, 'role'), `${at}.role`, ROLES)
    const parts = v.array(v.own(message, 'parts'), `${at}.parts`)
    const last = i === messages.length - 1
    switch (role) {
      case 'system': {
        const text = systemText(parts, at)
        if (text !== '') system.push(text)
        break
      }
      case 'user':
        turns.push(userTurn(parts, at, origins))
        break
      case 'assistant': {
        const steps = assistantSteps(parts, at, notes)
        const records = stepRecords(v.own(message, 'metadata'))
        if (last) answered(steps.at(-1)!)
        for (const step of steps) pushStep(step, records, { at, model, notes }, turns, origins)
        if (last) {
          const id = v.string(v.own(message, 'id'), `${at}.id`, { nonEmpty: true })
          // One record per step so far (each `step-start`'s): the answer's own comes after them.
          const started = steps.at(-1)!.index + 1
          continues = { id, earlier: Array.from({ length: started }, (_, k) => records[k] ?? null) }
        }
        break
      }
    }
  }
  const conversation = system.length === 0 ? { turns } : { system: system.join('\n\n'), turns }
  const request = { model, conversation, ...options }
  return { ok: true, request, stream: true, origins, continues, notes }
}

function systemText(parts: readonly unknown[], at: string): string {
  let text = ''
  parts.forEach((value, j) => {
    const part = v.record(value, `${at}.parts[${j}]`)
    v.oneOf(typeOf(part, `${at}.parts[${j}]`), `${at}.parts[${j}].type`, ['text'])
    text += v.string(v.own(part, 'text'), `${at}.parts[${j}].text`)
  })
  return text
}

function userTurn(parts: readonly unknown[], at: string, origins: TurnOrigin[]): UserTurn {
  const content: UserPart[] = []
  const entries: string[] = []
  parts.forEach((value, j) => {
    const where = `${at}.parts[${j}]`
    const part = v.record(value, where)
    const type = typeOf(part, where)
    if (type === 'text') {
      content.push({ type: 'text', text: v.string(v.own(part, 'text'), `${where}.text`) })
    } else if (type === 'file') {
      content.push(imagePart(part, where))
    } else if (type === 'step-start' || shownOnly(type)) {
      return
    } else {
      v.fail(`${where}.type`, `must be 'text' or 'file' in a user message, got ${v.describe(type)}`)
    }
    entries.push(where)
  })
  origins.push({ at, entries })
  return { role: 'user', content }
}

function imagePart(part: v.JsonRecord, at: string): UserPart {
  const mediaType = v.string(v.own(part, 'mediaType'), `${at}.mediaType`)
  if (!mediaType.toLowerCase().startsWith('image/')) {
    v.fail(
      `${at}.mediaType`,
      `must be an image type (the relay sends images only), got ${v.describe(mediaType)}`,
    )
  }
  return imageOfUrl(v.string(v.own(part, 'url'), `${at}.url`), `${at}.url`)
}
