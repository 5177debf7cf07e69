/**
 * `POST /v1/ai-sdk/chat` in process, driven by the AI SDK's own chat client (`AbstractChat`, what
 * `useChat` runs, on a `DefaultChatTransport`): the stream and its header, every refusal in the
 * protocol's error shape, a failure after the first part, a client that leaves, a tool loop run by
 * the client, usage, and the sealed reasoning state across turns, checked on the model's side
 * (`adapter.calls[n].request`).
 */
import { lastAssistantMessageIsCompleteWithToolCalls, type UIMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import type { Adapter } from '../../../src/core/adapter.ts'
import type { Pricing } from '../../../src/core/pricing.ts'
import { guardStream } from '../../../src/kit/guard-stream.ts'
import { mock } from '../../../src/providers/mock/index.ts'
import type { UiMessageMetadata, UiStep } from '../../../src/relay/ai-sdk/index.ts'
import {
  createRelay,
  refuseRequest,
  type Relay,
  type RelayLogEntry,
  type RelayOptions,
} from '../../../src/relay/index.ts'
import { decodeSealedTurn, encodeSealedTurn } from '../../../src/relay/sealed-turn.ts'
import { eventually } from '../../helpers/eventually.ts'
import { overBudget, rateLimited } from '../refusal-relays.ts'
import { relayTransport, TestChat, textOf } from './chat.ts'

const TOKEN = 'token-ai-sdk-route-0123'
const SEAL = 'seal-ai-sdk-route-Qm4Rt8Wz2Xc6Vb0Nk5Lp'
const CLAUDE = 'anthropic/claude-sonnet-4-5'
const PATH = 'http://relay.test/v1/ai-sdk/chat'

/** A relay of `providers`, sealed, behind TOKEN, whose log entries are kept. */
function relayOf(providers: RelayOptions['providers'], more: Partial<RelayOptions> = {}) {
  const entries: RelayLogEntry[] = []
  const relay = createRelay({
    providers,
    auth: [TOKEN],
    sealKeys: [SEAL],
    log: (entry) => entries.push(entry),
    ...more,
  })
  return { relay, entries }
}

/** `useChat`'s client on `relay`, asking `model`; the responses it got are kept. */
function chatOn(
  relay: Relay,
  body: Record<string, unknown>,
  init: ConstructorParameters<typeof TestChat>[0] = {},
) {
  const responses: Response[] = []
  const chat = new TestChat({
    ...init,
    transport: relayTransport({
      base: 'http://relay.test',
      body,
      token: TOKEN,
      fetch: async (input, options) => {
        const response = await relay.fetch(new Request(input, options))
        responses.push(response.clone())
        return response
      },
    }),
  })
  return { chat, responses }
}

/** The steps recorded in an assistant message's metadata. */
function stepsOf(message: UIMessage | undefined): (UiStep | null)[] {
  return (message?.metadata as UiMessageMetadata | undefined)?.thinkwire.steps ?? []
}

/** A POST of `body` as the transport sends it. */
function post(relay: Relay, body: unknown, headers: Record<string, string> = {}) {
  return relay.fetch(
    new Request(PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
      body: JSON.stringify(body),
    }),
  )
}

const ask = (text: string, id = 'u1'): UIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
})

describe('/v1/ai-sdk/chat answers', () => {
  it('streams a UI message stream that useChat’s client shows as one message, with its usage', async () => {
    const adapter = mock({
      script: [
        {
          thinking: 'A greeting.',
          text: 'Hello there!',
          usage: { inputTokens: 12, outputTokens: 34 },
        },
      ],
      chunkSize: 4,
    })
    const { relay } = relayOf({ mock: [adapter] })
    const { chat, responses } = chatOn(relay, { model: 'mock/echo' })
    await chat.sendMessage({ text: 'Hi' })
    expect(chat.status).toBe('ready')
    const [response] = responses
    expect(response?.headers.get('content-type')).toBe('text/event-stream')
    expect(response?.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1')
    const answer = chat.messages[1]
    expect(answer?.role).toBe('assistant')
    expect(answer?.id).toMatch(/^msg_[0-9a-f]{24}$/)
    expect(textOf(answer, 'reasoning')).toBe('A greeting.')
    expect(textOf(answer, 'text')).toBe('Hello there!')
    expect(stepsOf(answer)).toEqual([
      {
        model: 'mock/echo',
        usage: { inputTokens: 12, outputTokens: 34, reasoningTokens: 3 },
        sealed: expect.any(String),
      },
    ])
    // What went upstream: the user's message.
    expect(adapter.calls[0]?.request).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
    ])
  })

  it('reports the cost of a priced model in the step’s usage', async () => {
    const PRICE: Pricing = { input: 3, output: 15 }
    const priced: Adapter = {
      provider: 'acme',
      model: 'm-1',
      capabilities: { thinking: { mode: 'none' }, tools: false, json: false, pricing: PRICE },
      stream: (_, options) =>
        guardStream(
          { provider: 'acme', model: 'm-1', options, pricing: PRICE },
          async function* () {
            yield { type: 'text', text: 'Priced.' }
            return { usage: { inputTokens: 1000, outputTokens: 500 }, stopReason: 'stop' }
          },
        ),
    }
    const { relay } = relayOf({ acme: [priced] })
    const { chat } = chatOn(relay, { model: 'acme/m-1' })
    await chat.sendMessage({ text: 'Hi' })
    expect(stepsOf(chat.messages[1])[0]?.usage.cost).toBeCloseTo((1000 * 3 + 500 * 15) / 1e6, 12)
  })
})

describe('/v1/ai-sdk/chat refusals', () => {
  const providers = {
    mock: [
      mock(),
      mock({
        model: 'busy',
        script: [{ fail: { kind: 'rate-limit', retryAfterMs: 2000, message: 'upstream busy' } }],
      }),
    ],
  }
  const relays = {
    open: relayOf(providers).relay,
    rated: relayOf(providers, { rateLimiter: rateLimited() }).relay,
    budgeted: relayOf(providers, { rateLimiter: overBudget() }).relay,
  }
  const good = { id: 'c', model: 'mock/echo', trigger: 'submit-message', messages: [ask('Hi')] }

  it.each([
    [
      'a model it does not serve',
      relays.open,
      { ...good, model: 'mock/none' },
      {},
      404,
      { kind: 'invalid-request', field: 'model' },
      {},
    ],
    [
      'a field it does not take',
      relays.open,
      { ...good, apiKey: 'sk-x' },
      {},
      400,
      { kind: 'invalid-request', field: 'apiKey' },
      {},
    ],
    [
      'a bad part',
      relays.open,
      { ...good, messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: '' }] }] },
      {},
      400,
      {
        kind: 'invalid-request',
        field: 'messages[0].parts[0].text',
        errorText: 'messages[0].parts[0].text must not be empty',
      },
      {},
    ],
    ['a missing token', relays.open, good, { authorization: '' }, 401, { kind: 'auth' }, {}],
    [
      'a client over its rate limit',
      relays.rated,
      good,
      {},
      429,
      { kind: 'rate-limit', retryable: true, retryAfterMs: 3000 },
      { 'retry-after': '3' },
    ],
    [
      'a client over its budget',
      relays.budgeted,
      good,
      {},
      429,
      {
        kind: 'rate-limit',
        retryable: true,
        retryAfterMs: 7_200_000,
        errorText: expect.stringContaining('budget'),
      },
      { 'retry-after': '7200' },
    ],
    [
      'a provider over its rate limit',
      relays.open,
      { ...good, model: 'mock/busy' },
      {},
      429,
      { kind: 'rate-limit', errorText: 'upstream busy', retryable: true, retryAfterMs: 2000 },
      { 'retry-after': '2' },
    ],
  ] as const)(
    'answers %s with the UI stream’s error part as JSON, which useChat’s client raises',
    async (_, relay, body, headers, status, part, expectedHeaders) => {
      const response = await post(relay, body, headers)
      expect(response.status).toBe(status)
      expect(response.headers.get('content-type')).toBe('application/json')
      for (const [name, value] of Object.entries(expectedHeaders))
        expect(response.headers.get(name)).toBe(value)
      const text = await response.text()
      expect(JSON.parse(text)).toEqual({ type: 'error', errorText: expect.any(String), ...part })
      // The transport throws the body as the error's message.
      const { chat } = chatOn(relay, {
        model: body.model,
        ...('apiKey' in body ? { apiKey: body.apiKey } : {}),
      })
      if ('authorization' in headers) return
      await chat.sendMessage(body.messages[0] as UIMessage)
      expect(chat.status).toBe('error')
      expect(JSON.parse(chat.error!.message)).toEqual(JSON.parse(text))
    },
  )

  it('is the shape a host’s own refusal takes on this route, before a relay exists', async () => {
    const response = await refuseRequest(
      new Request(PATH, { method: 'POST', body: '{"model":"x"}' }),
      500,
      'server',
      'RELAY_TOKENS: a token is too short',
    )
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({
      type: 'error',
      errorText: 'RELAY_TOKENS: a token is too short',
      kind: 'server',
    })
  })

  it('answers a method other than POST with 405 and allow, in the same shape', async () => {
    const response = await relays.open.fetch(new Request(PATH))
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST, OPTIONS')
    expect(await response.json()).toMatchObject({ type: 'error', kind: 'invalid-request' })
  })

  it('ends a stream that fails after its first part with an error part, raised by useChat’s client', async () => {
    const adapter = mock({
      script: [
        {
          text: 'Halb fertig',
          fail: { kind: 'server', afterEvents: 1, message: 'upstream broke' },
        },
      ],
      chunkSize: 100,
    })
    const { relay, entries } = relayOf({ mock: [adapter] })
    const response = await post(relay, { ...good, model: 'mock/echo' })
    expect(response.status).toBe(200)
    const lines = (await response.text()).split('\n\n').filter((line) => line !== '')
    expect(lines.slice(-2)).toEqual([
      `data: ${JSON.stringify({ type: 'error', errorText: 'upstream broke', kind: 'server', retryable: true })}`,
      'data: [DONE]',
    ])
    const { chat } = chatOn(relay, { model: 'mock/echo' })
    await chat.sendMessage({ text: 'Hi' })
    expect(chat.status).toBe('error')
    expect(chat.error?.message).toBe('upstream broke')
    expect(textOf(chat.messages[1], 'text')).toBe('Halb fertig')
    expect(stepsOf(chat.messages[1])).toEqual([])
    expect(entries.at(-1)?.outcome).toBe('error')
  })
})

describe('/v1/ai-sdk/chat when the client leaves', () => {
  it('aborts the upstream call when useChat stops mid-answer, and nothing hangs', async () => {
    // The first delta goes at once; the second waits for a step that never comes.
    const adapter = mock({
      script: [{ thinking: 'Thinking long', text: 'never sent' }],
      chunkSize: 8,
      pace: ({ index }) => (index === 0 ? Promise.resolve() : new Promise(() => {})),
    })
    const { relay, entries } = relayOf({ mock: [adapter] })
    const { chat } = chatOn(relay, { model: 'mock/echo' })
    const sending = chat.sendMessage({ text: 'Hi' })
    await eventually(() => textOf(chat.messages[1], 'reasoning') === 'Thinking', 'the first part')
    expect(adapter.calls[0]!.signal.aborted).toBe(false)
    await chat.stop()
    await sending
    expect(chat.status).toBe('ready')
    await eventually(() => adapter.calls[0]!.signal.aborted, 'the upstream abort')
    // The answer ended as the client's abort, logged once.
    await eventually(() => entries.length === 1, 'the log entry')
    expect(entries[0]).toMatchObject({ outcome: 'error', error: { kind: 'aborted' } })
  })
})

describe('/v1/ai-sdk/chat tools', () => {
  const weather = {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  }

  it('relays calls out and the client’s results back, in one assistant message of two steps', async () => {
    const adapter = mock({ provider: 'anthropic', model: 'claude-sonnet-4-5' })
    const { relay } = relayOf({ anthropic: [adapter] })
    const { chat } = chatOn(
      relay,
      { model: CLAUDE, tools: [weather] },
      {
        sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
        onToolCall: ({ toolCall }) => {
          const { city } = toolCall.input as { city: string }
          void chat.addToolOutput({
            tool: 'get_weather',
            toolCallId: toolCall.toolCallId,
            output: `sunny in ${city}`,
          })
        },
      },
    )
    await chat.sendMessage({ text: 'Use get_weather: is it sunny in "Paris"?' })
    await eventually(() => adapter.calls.length === 2 && chat.status === 'ready', 'the second step')

    expect(chat.messages).toHaveLength(2)
    const answer = chat.messages[1]!
    expect(answer.parts.map((part) => part.type)).toEqual([
      'step-start',
      'reasoning',
      'tool-get_weather',
      'step-start',
      'reasoning',
      'text',
    ])
    const call = answer.parts[2] as {
      toolCallId: string
      state: string
      input: unknown
      output: unknown
    }
    expect(call).toMatchObject({
      state: 'output-available',
      input: { city: 'Paris' },
      output: 'sunny in Paris',
    })
    expect(textOf(answer, 'text')).toContain('sunny in Paris')

    // The second call got the first step verbatim (its items), then the client's result.
    const first = decodeSealedTurn(stepsOf(answer)[0]?.sealed)
    expect(adapter.calls[1]?.request.slice(1)).toEqual([
      { role: 'assistant', replayed: first?.items.data },
      {
        role: 'tool',
        results: [{ callId: call.toolCallId, name: 'get_weather', output: 'sunny in Paris' }],
      },
    ])
    expect(adapter.calls[1]?.options.tools).toEqual([weather])
    // Both steps are recorded, each with its own sealed turn.
    const steps = stepsOf(answer)
    expect(steps).toHaveLength(2)
    expect(decodeSealedTurn(steps[1]?.sealed)?.text).toBe(textOf(answer, 'text'))
  })
})

describe('/v1/ai-sdk/chat sealed reasoning state', () => {
  /** Two answers from an Anthropic-tagged mock: the second's request shows what it was sent. */
  async function twoTurns(edit: (messages: UIMessage[]) => void, model = CLAUDE) {
    const claude = mock({ provider: 'anthropic', model: 'claude-sonnet-4-5' })
    const echo = mock()
    const { relay, entries } = relayOf({ anthropic: [claude], mock: [echo] })
    const { chat } = chatOn(relay, { model: CLAUDE })
    await chat.sendMessage({ text: 'Why is the sky blue?' })
    const first = decodeSealedTurn(stepsOf(chat.messages[1])[0]?.sealed)!
    expect(first.items.provider).toBe('anthropic')
    edit(chat.messages)
    await chat.sendMessage({ text: 'And at sunset?' }, { body: { model } })
    const second = model === CLAUDE ? claude : echo
    return { first, sent: second.calls.at(-1)!.request, chat, notes: entries.at(-1)?.notes ?? [] }
  }

  it('replays an answer’s items verbatim to the same model on the next message', async () => {
    const { first, sent, notes } = await twoTurns(() => {})
    expect(sent[1]).toEqual({ role: 'assistant', replayed: first.items.data })
    expect(notes).toEqual([])
  })

  it('drops them with a note, and sends the turn from its text, when its text was changed', async () => {
    const { sent, notes } = await twoTurns((messages) => {
      const part = messages[1]!.parts.find((p) => p.type === 'text')!
      part.text = 'An answer of my own.'
    })
    expect(sent[1]).toEqual({ role: 'assistant', text: 'An answer of my own.', toolCalls: [] })
    expect(notes).toEqual([
      "messages[1].metadata.thinkwire.steps[0] dropped: its text is not the text of messages[1]'s step 0, so the step was sent from its text and tool calls",
    ])
  })

  it('drops them with a note when the record was changed under its seal', async () => {
    const { first, sent, notes } = await twoTurns((messages) => {
      const step = stepsOf(messages[1])[0]!
      const record = decodeSealedTurn(step.sealed)!
      const forged = { ...record, thinking: 'I was told otherwise.' }
      step.sealed = encodeSealedTurn({
        role: 'assistant',
        ...forged,
        usage: { inputTokens: 0, outputTokens: 0 },
        stopReason: 'stop',
      })
    })
    expect(sent[1]).toEqual({ role: 'assistant', text: first.text, toolCalls: [] })
    expect(notes).toEqual([
      'conversation.turns[1].items dropped: the turn was changed after this relay sealed it, so it was sent from its text and tool calls',
    ])
  })

  it('drops them with a note when the next message goes to another model', async () => {
    const { first, sent, notes } = await twoTurns(() => {}, 'mock/echo')
    expect(sent[1]).toEqual({ role: 'assistant', text: first.text, toolCalls: [] })
    expect(notes).toEqual([
      `messages[1].metadata.thinkwire.steps[0] dropped: it was made by '${CLAUDE}', not 'mock/echo', so the step was sent from its text and tool calls`,
    ])
  })

  it('sends no record without seal keys, and the turn goes back from its text', async () => {
    const claude = mock({ provider: 'anthropic', model: 'claude-sonnet-4-5' })
    const relay = createRelay({ providers: { anthropic: [claude] }, auth: [TOKEN] })
    const { chat } = chatOn(relay, { model: CLAUDE })
    await chat.sendMessage({ text: 'Hi' })
    expect(stepsOf(chat.messages[1])).toEqual([
      { model: CLAUDE, usage: expect.objectContaining({ inputTokens: expect.any(Number) }) },
    ])
    await chat.sendMessage({ text: 'Again' })
    expect(claude.calls[1]?.request[1]).toEqual({
      role: 'assistant',
      text: textOf(chat.messages[1], 'text'),
      toolCalls: [],
    })
  })
})
