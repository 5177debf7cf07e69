/**
 * The offline mock as an upstream: its request is the conversation as it "sends" it (replayed
 * items verbatim, other turns re-encoded), and its rules are those every provider shares.
 */
import type { Adapter } from '../../../src/core/adapter.ts'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import type { MockAdapter, MockResponse } from '../../../src/providers/mock/index.ts'
import type { Upstream } from '../checks.ts'
import { isJson, objects } from './wire.ts'

/** The tool call a mock answer makes. */
export const mockToolCall = { name: 'get_weather', input: { city: 'Bergen' } }

/** A scripted answer: thinking, text and one tool call, each distinct per `label`. */
export function mockAnswer(label: string): MockResponse {
  return {
    thinking: `Bergen for ${label}: rain likely.`,
    // Astral and combining characters: chunked by the mock, framed as SSE by the relay.
    text: `It rains in Bergen (${label}) ☔ Ünïcödé ✓ 你好 🎉.`,
    toolCalls: [{ id: `call_${label.replace(/\W/g, '_')}`, ...mockToolCall }],
  }
}

/** What a mock answer streams as thinking and as text. */
export function mockStreamed(label: string): { thinking: string; text: string } {
  const { thinking = '', text = '' } = mockAnswer(label)
  return { thinking, text }
}

/** Thinking, then the output limit: a turn cut short before its answer. */
export const mockCutShort: MockResponse = {
  thinking: 'Bergen: a long think 🧠',
  stopReason: 'length',
}

/** Fails with a server error after the first event. */
export const mockFailure: MockResponse = {
  text: 'partial answer',
  fail: { kind: 'server', afterEvents: 1 },
}

/** Goes silent after the first event until aborted. */
export const mockStall: MockResponse = { text: 'partial answer', stallAfterEvents: 1 }

/**
 * `adapter` (a mock, or a wrapper around mocks) seen as a contract upstream: `answering` is the
 * mock that answers, `others` are mocks whose calls also count as requests.
 */
export function overMock(
  adapter: Adapter,
  answering: MockAdapter,
  others: MockAdapter[] = [],
): Upstream {
  return {
    adapter,
    upstreamAborted: () => answering.calls.at(-1)?.signal.aborted === true,
    lastRequest: () => answering.calls.at(-1)?.request,
    requestCount: () => [answering, ...others].reduce((n, mock) => n + mock.calls.length, 0),
  }
}

/** A mock's items, whole: they reach a request only when replayed. */
export function mockMarkers(turn: AssistantTurn): string[] {
  return (turn.items?.data ?? []).map((item) => JSON.stringify(item))
}

/**
 * The rules every provider shares, on the mock's request turns: the user speaks first, and a tool
 * turn answers exactly the calls of the assistant turn just before it.
 */
export function mockRequestProblems(request: unknown): string[] {
  if (!Array.isArray(request)) return ['no request turns']
  const turns = objects(request)
  const problems: string[] = []
  if (turns[0]?.['role'] !== 'user') problems.push('turns[0] is not the user')
  turns.forEach((turn, i) => {
    if (turn['role'] !== 'tool') return
    const before = turns[i - 1]
    const replayed = objects(before?.['replayed'])[0]
    const calls = objects(isJson(replayed) ? replayed['toolCalls'] : before?.['toolCalls'])
    const ids = new Set(calls.map((call) => call['id']))
    const answered = objects(turn['results']).map((result) => result['callId'])
    if (before?.['role'] !== 'assistant' || answered.some((id) => !ids.has(id)))
      problems.push(`turns[${i}] answers calls the assistant turn before did not make`)
    if (answered.length !== ids.size) problems.push(`turns[${i}] leaves calls unanswered`)
  })
  return problems
}
