/**
 * A scripted Anthropic API on the loopback, for the Worker tests whose clients speak another
 * dialect: it answers a first request with signed thinking, a sentence and a `get_weather` call,
 * and a request that carries the tool's result with the answer, and keeps every request body, so
 * that a test can check on the provider's side of the wire what the relay replayed.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** An Anthropic SSE event, as `[event, data]`. */
export type AnthropicEvent = [string, unknown]

/** What the relay sent the scripted API. */
export type UpstreamBody = { messages: { role: string; content: unknown }[]; tools?: unknown[] }

/** Anthropic SSE for a list of events. */
export function anthropicSse(events: AnthropicEvent[]): string {
  return events
    .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    .join('')
}

export const start = (id: string): AnthropicEvent => [
  'message_start',
  {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 40, output_tokens: 1 },
    },
  },
]
export const block = (index: number, content_block: unknown): AnthropicEvent => [
  'content_block_start',
  { type: 'content_block_start', index, content_block },
]
export const delta = (index: number, d: unknown): AnthropicEvent => [
  'content_block_delta',
  { type: 'content_block_delta', index, delta: d },
]
export const stop = (index: number): AnthropicEvent => [
  'content_block_stop',
  { type: 'content_block_stop', index },
]
export const end = (reason: string, output: number): AnthropicEvent[] => [
  [
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: reason, stop_sequence: null },
      usage: { output_tokens: output },
    },
  ],
  ['message_stop', { type: 'message_stop' }],
]

/** The thinking of {@link toolTurn}. */
export const TOOL_THINKING = 'The weather needs a tool → get_weather.'

/** Block 0: `text` as signed thinking, in `pieces` deltas, then its signature. */
export function signedThinking(text: string, signature: string, pieces = 1): AnthropicEvent[] {
  const size = Math.ceil(text.length / pieces)
  const deltas: AnthropicEvent[] = []
  for (let at = 0; at < text.length; at += size) {
    deltas.push(delta(0, { type: 'thinking_delta', thinking: text.slice(at, at + size) }))
  }
  return [
    block(0, { type: 'thinking', thinking: '', signature: '' }),
    ...deltas,
    delta(0, { type: 'signature_delta', signature }),
    stop(0),
  ]
}

/** Signed thinking, a sentence, then a `get_weather` call for Paris. */
export function toolTurn(signature: string): string {
  return anthropicSse([
    start('msg_tool'),
    ...signedThinking(TOOL_THINKING, signature, 2),
    block(1, { type: 'text', text: '' }),
    delta(1, { type: 'text_delta', text: 'Let me check.' }),
    stop(1),
    block(2, { type: 'tool_use', id: 'toolu_weather', name: 'get_weather', input: {} }),
    delta(2, { type: 'input_json_delta', partial_json: '{"city": "Par' }),
    delta(2, { type: 'input_json_delta', partial_json: 'is"}' }),
    stop(2),
    ...end('tool_use', 60),
  ])
}

/** {@link toolTurn}'s content as the provider made it: what a replay must send back verbatim. */
export function toolTurnContent(signature: string): unknown[] {
  return [
    { type: 'thinking', thinking: TOOL_THINKING, signature },
    { type: 'text', text: 'Let me check.' },
    { type: 'tool_use', id: 'toolu_weather', name: 'get_weather', input: { city: 'Paris' } },
  ]
}

/** The answer once the tool's result is in. */
export const ANSWER_TURN = anthropicSse([
  start('msg_answer'),
  block(0, { type: 'text', text: '' }),
  delta(0, { type: 'text_delta', text: 'Sunny in Paris, 21 °C.' }),
  stop(0),
  ...end('end_turn', 9),
])

/** Whether a request carries a tool's result in its last message. */
export const answersTool = (body: UpstreamBody): boolean =>
  JSON.stringify(body.messages.at(-1)?.content ?? '').includes('tool_result')

/** A scripted API on the loopback: its URL, the bodies it was sent, and how to close it. */
export type ScriptedAnthropic = { url: string; bodies: UpstreamBody[]; close(): Promise<void> }

/**
 * Starts the scripted API: each request is answered with `answer(body)` (by default
 * {@link ANSWER_TURN} to a tool's result, else {@link toolTurn} signed with `signature`).
 */
export async function startScriptedAnthropic(
  signature: string,
  answer: (body: UpstreamBody) => string = (body) =>
    answersTool(body) ? ANSWER_TURN : toolTurn(signature),
): Promise<ScriptedAnthropic> {
  const bodies: UpstreamBody[] = []
  const server = createServer((request, response) => {
    let text = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (text += chunk))
    request.on('end', () => {
      const body = JSON.parse(text) as UpstreamBody
      bodies.push(body)
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.end(answer(body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** The test Worker's settings for a relay whose Anthropic is `upstream`, sealing with `sealKeys`. */
export function scriptedAnthropicVars(
  upstream: ScriptedAnthropic,
  token: string,
  sealKeys: string,
): Record<string, string> {
  return {
    RELAY_TOKENS: token,
    SEAL_KEYS: sealKeys,
    ANTHROPIC_API_KEY: 'sk-ant-test-key-scripted-0123456789',
    ANTHROPIC_BASE_URL: upstream.url,
    ANTHROPIC_MODELS: 'claude-sonnet-4-5',
    MOCK_MODELS: 'on',
    MOCK_DELAY_MS: '0',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
  }
}
