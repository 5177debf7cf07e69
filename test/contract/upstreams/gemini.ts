/**
 * The Gemini API (`streamGenerateContent?alt=sse`) as an upstream: its streamed answer (data-only
 * SSE with CRLF line ends, one candidate per chunk) and the rules it sets for `contents`.
 */
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import { isJson, objects, stringField, type Json, type Wire } from './wire.ts'

/** The tool call the answer streams. */
export const geminiToolCall = { name: 'get_weather', input: { city: 'München' } }

/** What the answer streams as thinking and as text. */
export const geminiStreamed = {
  thinking: '**Wetter prüfen** 🤔 München → Werkzeug.',
  text: 'Ich sehe nach → einen Moment ☔.',
}

function chunk(model: string, parts: Json[], extra: Json, usage: Json): string {
  const data = {
    candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
    usageMetadata: usage,
    modelVersion: model,
    responseId: 'resp-contract',
  }
  return `data: ${JSON.stringify(data)}\r\n\r\n`
}

/** Thought parts, text parts, a signed function call, then the finish chunk with usage. */
export function geminiAnswer(model: string): Wire {
  const prompt = { promptTokenCount: 40, totalTokenCount: 40 }
  return {
    events: [
      chunk(model, [{ text: '**Wetter prüfen** 🤔', thought: true }], {}, prompt),
      chunk(model, [{ text: ' München → Werkzeug.', thought: true }], {}, prompt),
      chunk(model, [{ text: 'Ich sehe nach → ' }], {}, prompt),
      chunk(model, [{ text: 'einen Moment ☔.' }], {}, prompt),
      chunk(
        model,
        [
          {
            functionCall: { name: 'get_weather', args: { city: 'München' } },
            thoughtSignature: 'U0lHLWNvbnRyYWN0LWdlbWluaQ==',
          },
        ],
        {},
        prompt,
      ),
      chunk(
        model,
        [{ text: '' }],
        { finishReason: 'STOP' },
        {
          promptTokenCount: 40,
          candidatesTokenCount: 12,
          thoughtsTokenCount: 30,
          cachedContentTokenCount: 8,
          totalTokenCount: 82,
        },
      ),
    ],
    firstDelta: 0,
  }
}

/** Thought parts, the last one signed, then the finish chunk of the output limit (`MAX_TOKENS`). */
export function geminiCutShort(model: string): Wire {
  const prompt = { promptTokenCount: 40, totalTokenCount: 40 }
  return {
    events: [
      chunk(model, [{ text: '**Lange denken** 🧠', thought: true }], {}, prompt),
      chunk(
        model,
        [{ text: ' München …', thought: true, thoughtSignature: 'U0lHLWNvbnRyYWN0LWN1dA==' }],
        {},
        prompt,
      ),
      chunk(
        model,
        [{ text: '' }],
        { finishReason: 'MAX_TOKENS' },
        { promptTokenCount: 40, thoughtsTokenCount: 512, totalTokenCount: 552 },
      ),
    ],
    firstDelta: 0,
  }
}

/** The thought signatures of a turn: they reach a request only when its items are replayed. */
export function geminiMarkers(turn: AssistantTurn): string[] {
  return objects(turn.items?.data).flatMap((part) => {
    const signature = stringField(part, 'thoughtSignature')
    return signature === undefined ? [] : [signature]
  })
}

/**
 * What the Gemini API refuses in `contents`: a role other than `user`/`model`, a content without
 * parts, a `functionResponse` that does not follow a `functionCall` of the same name in the
 * content just before it, and, on Gemini 3 (`signedCalls`), a model content whose first
 * `functionCall` part has no `thoughtSignature`.
 */
export function geminiRequestProblems(body: unknown, signedCalls = true): string[] {
  if (!isJson(body) || !Array.isArray(body['contents'])) return ['the body has no contents list']
  const contents = objects(body['contents'])
  const problems: string[] = []
  const partsOf = (content: Json | undefined) => objects(content?.['parts'])
  contents.forEach((content, i) => {
    const at = `contents[${i}]`
    const role = content['role']
    if (role !== 'user' && role !== 'model') problems.push(`${at}.role is ${String(role)}`)
    const parts = partsOf(content)
    if (parts.length === 0) problems.push(`${at} has no parts`)
    const before = contents[i - 1]
    const called = new Set(
      partsOf(before).flatMap((part) =>
        isJson(part['functionCall']) ? [part['functionCall']['name']] : [],
      ),
    )
    parts.forEach((part, j) => {
      const response = part['functionResponse']
      if (!isJson(response)) return
      if (before?.['role'] !== 'model' || !called.has(response['name']))
        problems.push(
          `${at}.parts[${j}] answers ${String(response['name'])}, no functionCall just before`,
        )
    })
    const firstCall = parts.find((part) => isJson(part['functionCall']))
    if (signedCalls && role === 'model' && firstCall !== undefined) {
      if (typeof firstCall['thoughtSignature'] !== 'string')
        problems.push(`${at}: its first functionCall has no thoughtSignature`)
    }
  })
  return problems
}
