/**
 * The AI SDK's chat request, field by field: what `DefaultChatTransport` sends, each UI part of
 * each role, the steps of an assistant message and their sealed records, and every refusal named
 * by the request's own path.
 */
import { DefaultChatTransport, type PrepareSendMessagesRequest, type UIMessage } from 'ai'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../../helpers/property.ts'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import {
  aiSdkDialect,
  translateUiRequest,
  UI_REQUEST_FIELDS,
  type TranslatedUiRequest,
  type UiStep,
} from '../../../src/relay/ai-sdk/index.ts'
import { encodeSealedTurn } from '../../../src/relay/sealed-turn.ts'
import type { RequestLimits } from '../../../src/relay/validate-request.ts'

const limits: RequestLimits = {
  turns: 20,
  tools: 4,
  maxTokens: 10_000,
  depth: 8,
  toolCalls: 4,
  toolResults: 4,
}
const model = 'anthropic/claude-sonnet-4-5'
const hi: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }

function translated(body: Record<string, unknown>): TranslatedUiRequest {
  const result = translateUiRequest({ id: 'chat', model, trigger: 'submit-message', ...body })
  if (!result.ok) throw new Error(result.message)
  return result
}

/** The refusal of `body` (after the relay's own checks too), whose message starts with its field. */
function refused(body: Record<string, unknown>): { field: string | undefined; message: string } {
  const result = aiSdkDialect.parse({ id: 'chat', model, ...body }, limits)
  if (result.ok) throw new Error('expected the body to be refused')
  expect(result.message.startsWith(result.field ?? '')).toBe(true)
  return { field: result.field, message: result.message }
}

const sealedTurn: AssistantTurn = {
  role: 'assistant',
  text: 'Checking.',
  thinking: 'The user wants the weather.',
  toolCalls: [{ id: 'call_1', name: 'weather', input: { city: 'Paris', days: [1, 2] } }],
  usage: { inputTokens: 5, outputTokens: 9 },
  stopReason: 'tool-calls',
  items: {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    thinkingMode: 'adaptive',
    data: [{ type: 'thinking', thinking: 'The user wants the weather.', signature: 'c2ln' }],
    seal: 's1.AAAAAAAA.mac',
  },
}

/** The assistant UI message a client keeps for `sealedTurn`, its tool's output added. */
function sentBack(step: Partial<UiStep> = {}): UIMessage {
  return {
    id: 'msg_a',
    role: 'assistant',
    metadata: {
      thinkwire: {
        steps: [{ model, usage: sealedTurn.usage, sealed: encodeSealedTurn(sealedTurn), ...step }],
      },
    },
    parts: [
      { type: 'step-start' },
      { type: 'reasoning', text: 'shown only', state: 'done' },
      { type: 'text', text: 'Checking.', state: 'done' },
      {
        type: 'tool-weather',
        toolCallId: 'call_1',
        state: 'output-available',
        // Other key order: still the same input.
        input: { days: [1, 2], city: 'Paris' },
        output: { sky: 'sunny' },
      },
    ],
  }
}

describe('the fields of the AI SDK’s request', () => {
  it('knows every field DefaultChatTransport writes around the app’s body', async () => {
    // The options prepareSendMessagesRequest is given, less those that are not body fields: a
    // field the SDK adds there stops this compiling until it is in the table.
    type Sent = keyof Omit<
      Parameters<PrepareSendMessagesRequest<UIMessage>>[0],
      'api' | 'body' | 'headers' | 'credentials' | 'requestMetadata'
    >
    const sentFields: Record<Sent, true> = {
      id: true,
      messages: true,
      trigger: true,
      messageId: true,
    }

    let body: Record<string, unknown> = {}
    const transport = new DefaultChatTransport<UIMessage>({
      api: 'http://relay.test/v1/ai-sdk/chat',
      body: { model, thinking: 'low' },
      fetch: async (_, init) => {
        body = JSON.parse(String(init?.body)) as Record<string, unknown>
        return new Response('data: [DONE]\n\n')
      },
    })
    await transport.sendMessages({
      chatId: 'chat_1',
      messages: [hi],
      trigger: 'regenerate-message',
      messageId: 'msg_x',
      abortSignal: undefined,
    })
    expect(Object.keys(body).toSorted()).toEqual(
      [...Object.keys(sentFields), 'model', 'thinking'].toSorted(),
    )
    for (const key of Object.keys(body)) expect(UI_REQUEST_FIELDS).toHaveProperty(key)
    const result = translateUiRequest(body)
    expect(result.ok && result.request).toEqual({
      model,
      conversation: { turns: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] },
      thinking: 'low',
    })
  })

  it('passes /v1/chat’s call options through by their names', () => {
    const options = {
      thinking: { budgetTokens: 2000 },
      tools: [{ name: 'weather', parameters: { type: 'object' } }],
      toolChoice: 'auto',
      maxTokens: 500,
      temperature: 0.2,
      stop: ['END'],
      responseFormat: { type: 'json' },
      cache: true,
    }
    const { request } = translated({ messages: [hi], ...options })
    expect(request).toMatchObject(options)
  })

  it('refuses fields that are not the route’s, providerOptions among them, naming them', () => {
    expect(refused({ messages: [hi], baseURL: 'http://evil.test' }).field).toBe('baseURL')
    expect(refused({ messages: [hi], providerOptions: { anthropic: {} } }).field).toBe(
      'providerOptions',
    )
    expect(refused({ messages: [hi], stream: false }).field).toBe('stream')
  })

  it.each([
    [{ messages: [hi], model: '' }, 'model'],
    [{ messages: [hi], model: undefined }, 'model'],
    [{ messages: [] }, 'messages'],
    [{ messages: 'Hi' }, 'messages'],
    [{ messages: [hi], trigger: 'resume-stream' }, 'trigger'],
    [{ messages: [hi], id: 7 }, 'id'],
    [{ messages: [hi], messageId: {} }, 'messageId'],
    [{ messages: [hi], thinking: 'very' }, 'thinking'],
    [{ messages: [hi], tools: [{ name: 'bad name', parameters: {} }] }, 'tools[0].name'],
    [{ messages: [hi], maxTokens: 0 }, 'maxTokens'],
  ])('refuses %j naming %s', (body, field) => {
    expect(refused(body).field).toBe(field)
  })

  it('refuses a body that is not an object', () => {
    expect(aiSdkDialect.parse([hi], limits)).toMatchObject({ ok: false, field: 'body' })
  })
})

describe('system and user messages', () => {
  it('joins system messages into the system prompt, in order', () => {
    const system = (id: string, ...texts: string[]): UIMessage => ({
      id,
      role: 'system',
      parts: texts.map((text) => ({ type: 'text', text })),
    })
    const { request } = translated({
      messages: [system('s1', 'Be ', 'brief.'), hi, system('s2', 'Use French.')],
    })
    expect(request.conversation.system).toBe('Be brief.\n\nUse French.')
    expect(request.conversation.turns).toHaveLength(1)
  })

  it('refuses a system part that is not text', () => {
    const message = { id: 's', role: 'system', parts: [{ type: 'step-start' }] }
    expect(refused({ messages: [message, hi] }).field).toBe('messages[0].parts[0].type')
  })

  it('sends text and images, inline or by URL, and leaves out what is only shown', () => {
    const { request, origins } = translated({
      messages: [
        {
          id: 'u1',
          role: 'user',
          metadata: { app: 'kept to itself' },
          parts: [
            { type: 'step-start' },
            { type: 'text', text: 'What is this?' },
            { type: 'file', mediaType: 'image/png', url: 'data:IMAGE/PNG;base64,iVBORw0KGgo=' },
            { type: 'data-weather', data: { any: 'thing' } },
            { type: 'source-url', sourceId: 's', url: 'https://example.com' },
            { type: 'file', mediaType: 'image/jpeg', url: 'https://example.com/cat.jpg' },
          ],
        },
      ],
    })
    expect(request.conversation.turns).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
          { type: 'image', url: 'https://example.com/cat.jpg' },
        ],
      },
    ])
    expect(origins[0]?.entries).toEqual([
      'messages[0].parts[1]',
      'messages[0].parts[2]',
      'messages[0].parts[5]',
    ])
  })

  it.each([
    [
      { type: 'file', mediaType: 'application/pdf', url: 'data:application/pdf;base64,JVBE' },
      '.mediaType',
    ],
    [{ type: 'file', mediaType: 'image/png', url: 'data:image/png,raw' }, '.url'],
    [{ type: 'file', mediaType: 'image/png' }, '.url'],
    [{ type: 'text', text: 3 }, '.text'],
    [{ type: 'text', text: '' }, '.text'],
    [{ type: 'reasoning', text: 'a user does not reason here' }, '.type'],
    [{ type: 'tool-weather', toolCallId: 'c', state: 'input-available', input: {} }, '.type'],
    [{ type: 'banana' }, '.type'],
    [{ type: 7 }, '.type'],
    [{ type: 'file', mediaType: 'image/png', url: 'ftp://example.com/cat.png' }, '.url'],
  ])('refuses the user part %j naming its %s', (part, tail) => {
    const message = { id: 'u1', role: 'user', parts: [part] }
    expect(refused({ messages: [message] }).field).toBe(`messages[0].parts[0]${tail}`)
  })

  it('refuses a message without parts or a role, and a user message that says nothing', () => {
    expect(refused({ messages: [{ id: 'u', role: 'user' }] }).field).toBe('messages[0].parts')
    expect(refused({ messages: [{ id: 'u', role: 'tool', parts: [] }] }).field).toBe(
      'messages[0].role',
    )
    const silent = { id: 'u', role: 'user', parts: [{ type: 'data-x', data: 1 }] }
    expect(refused({ messages: [silent] })).toEqual({
      field: 'messages[0].parts',
      message: 'messages[0].parts must not be empty',
    })
  })
})

describe('assistant messages', () => {
  it('makes each step an assistant turn, with a tool turn of its outputs after it', () => {
    const message: UIMessage = {
      id: 'msg_a',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'reasoning', text: 'Two tools.' },
        { type: 'text', text: 'Checking ' },
        { type: 'text', text: 'both.' },
        {
          type: 'tool-weather',
          toolCallId: 'c1',
          state: 'output-available',
          input: { city: 'Paris' },
          output: 'sunny',
        },
        {
          type: 'dynamic-tool',
          toolName: 'time',
          toolCallId: 'c2',
          state: 'output-error',
          input: {},
          errorText: 'no clock',
        },
        { type: 'step-start' },
        { type: 'text', text: 'Sunny; the clock failed.' },
        { type: 'source-url', sourceId: 's', url: 'https://example.com' },
        { type: 'data-chart', data: [1, 2] },
      ],
    }
    const { request, notes } = translated({ messages: [hi, message, { ...hi, id: 'u2' }] })
    expect(request.conversation.turns.slice(1, 4)).toEqual([
      {
        role: 'assistant',
        text: 'Checking both.',
        toolCalls: [
          { id: 'c1', name: 'weather', input: { city: 'Paris' } },
          { id: 'c2', name: 'time', input: {} },
        ],
        usage: { inputTokens: 0, outputTokens: 0 },
        stopReason: 'tool-calls',
      },
      {
        role: 'tool',
        results: [
          { callId: 'c1', name: 'weather', output: 'sunny' },
          { callId: 'c2', name: 'time', output: 'no clock', isError: true },
        ],
      },
      {
        role: 'assistant',
        text: 'Sunny; the clock failed.',
        usage: { inputTokens: 0, outputTokens: 0 },
        stopReason: 'stop',
      },
    ])
    expect(notes).toEqual([])
  })

  it('sends a denied call as an error result, and leaves out what it cannot send back, saying so', () => {
    const message: UIMessage = {
      id: 'msg_a',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'text', text: 'Here is a chart.' },
        { type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,AAAA' },
        {
          type: 'tool-delete',
          toolCallId: 'c1',
          state: 'output-denied',
          input: { all: true },
          approval: { id: 'a1', approved: false, reason: 'not today' },
        },
        {
          type: 'tool-search',
          toolCallId: 'c2',
          state: 'output-available',
          input: {},
          output: 'x',
          providerExecuted: true,
        },
        { type: 'tool-draft', toolCallId: 'c3', state: 'input-streaming', input: { par: 1 } },
      ],
    }
    const { request, notes } = translated({ messages: [hi, message, { ...hi, id: 'u2' }] })
    expect(request.conversation.turns[2]).toEqual({
      role: 'tool',
      results: [{ callId: 'c1', name: 'delete', output: 'not today', isError: true }],
    })
    expect(notes).toEqual([
      'messages[1].parts[2] left out: the relay sends no file of an answer back to a model',
      'messages[1].parts[4] left out: the provider ran it, and the relay cannot send that back',
      'messages[1].parts[5] left out: its input never arrived whole',
    ])
  })

  it('leaves out a step that says nothing, as a stop before the first word', () => {
    const message = {
      id: 'msg_a',
      role: 'assistant',
      parts: [{ type: 'step-start' }, { type: 'reasoning', text: 'Hmm' }],
    }
    const { request } = translated({ messages: [hi, message, { ...hi, id: 'u2' }] })
    expect(request.conversation.turns.map((turn) => turn.role)).toEqual(['user', 'user'])
  })

  it('refuses a last message whose calls wait for their output, naming the part', () => {
    const message: UIMessage = {
      id: 'msg_a',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'tool-weather', toolCallId: 'c1', state: 'output-available', input: {}, output: 1 },
        { type: 'tool-time', toolCallId: 'c2', state: 'input-available', input: {} },
      ],
    }
    expect(refused({ messages: [hi, message] }).field).toBe('messages[1].parts[2].state')
    // Earlier in the chat, the same call is sent as not given (the user went on).
    expect(aiSdkDialect.parse({ model, messages: [hi, message, hi] }, limits).ok).toBe(true)
  })

  it.each([
    [{ type: 'tool-', toolCallId: 'c', state: 'input-available', input: {} }, '.type'],
    [{ type: 'dynamic-tool', toolCallId: 'c', state: 'input-available', input: {} }, '.toolName'],
    [{ type: 'tool-x', state: 'input-available', input: {} }, '.toolCallId'],
    [{ type: 'tool-x', toolCallId: 'c', state: 'done', input: {} }, '.state'],
    [{ type: 'tool-x', toolCallId: 'c', state: 'output-available', output: 1 }, '.input'],
    [{ type: 'tool-x', toolCallId: 'c', state: 'output-error', input: {} }, '.errorText'],
    [{ type: 'text', text: null }, '.text'],
    [{ type: 'reasoning' }, '.text'],
    [{ type: 'image', url: 'x' }, '.type'],
  ])('refuses the assistant part %j naming its %s', (part, tail) => {
    const message = { id: 'a', role: 'assistant', parts: [{ type: 'step-start' }, part] }
    expect(refused({ messages: [hi, message, hi] }).field).toBe(`messages[1].parts[1]${tail}`)
  })

  it('names the part of a call or result the relay’s own checks refuse', () => {
    const twice = {
      id: 'a',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'tool-x', toolCallId: 'c', state: 'output-available', input: {}, output: 1 },
        { type: 'tool-y', toolCallId: 'c', state: 'output-available', input: {}, output: 2 },
      ],
    }
    expect(refused({ messages: [hi, twice] })).toEqual({
      field: 'messages[1].parts[2].toolCallId',
      message: "messages[1].parts[2].toolCallId repeats the tool call id 'c'",
    })
    const deep = (depth: number): unknown => (depth === 0 ? 1 : { a: deep(depth - 1) })
    const nested = {
      id: 'a',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'tool-x', toolCallId: 'c', state: 'output-available', input: {}, output: deep(12) },
      ],
    }
    expect(refused({ messages: [hi, nested] }).field).toBe('messages[1].parts[1].output')
    const tooMany = Array.from({ length: 21 }, (_, i) => ({ ...hi, id: `u${i}` }))
    expect(refused({ messages: tooMany }).field).toBe('messages')
  })
})

describe('the sealed record of a step', () => {
  it('stands for the step when its text and tool calls are the step’s, for the model asked', () => {
    const { request, notes } = translated({ messages: [hi, sentBack()] })
    const { seal, ...items } = sealedTurn.items!
    expect(request.conversation.turns[1]).toEqual({
      role: 'assistant',
      text: 'Checking.',
      thinking: 'The user wants the weather.',
      toolCalls: sealedTurn.toolCalls,
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'tool-calls',
      items: { ...items, seal },
    })
    expect(notes).toEqual([])
  })

  it.each([
    [
      'the text was changed',
      (message: UIMessage) => {
        message.parts[2] = { type: 'text', text: 'Checking!' }
      },
      "its text is not the text of messages[1]'s step 0",
    ],
    [
      'a call’s input was changed',
      (message: UIMessage) => {
        message.parts[3] = { ...message.parts[3]!, input: { city: 'Lyon', days: [1, 2] } } as never
      },
      "its tool calls are not the tool parts of messages[1]'s step 0",
    ],
    [
      'the record was cut',
      (message: UIMessage) => {
        const steps = (message.metadata as { thinkwire: { steps: UiStep[] } }).thinkwire.steps
        steps[0]!.sealed = steps[0]!.sealed!.slice(0, 40)
      },
      'its sealed turn does not decode',
    ],
  ])('is dropped with a note when %s', (_, change, reason) => {
    const message = sentBack()
    change(message)
    const { request, notes } = translated({ messages: [hi, message] })
    expect(request.conversation.turns[1]).not.toHaveProperty('items')
    expect(notes).toEqual([
      `messages[1].metadata.thinkwire.steps[0] dropped: ${reason}, so the step was sent from its text and tool calls`,
    ])
  })

  it('is dropped with a note when the message goes to another model', () => {
    const { request, notes } = translated({ messages: [hi, sentBack()], model: 'mock/echo' })
    expect(request.conversation.turns[1]).toMatchObject({ text: 'Checking.' })
    expect(request.conversation.turns[1]).not.toHaveProperty('items')
    expect(notes).toEqual([
      `messages[1].metadata.thinkwire.steps[0] dropped: it was made by '${model}', not 'mock/echo', so the step was sent from its text and tool calls`,
    ])
  })

  it('goes on with the last assistant message: its id, and its steps’ records', () => {
    const unsealed = { model: 'mock/echo', usage: { inputTokens: 1, outputTokens: 2, cost: 0.5 } }
    const message = sentBack()
    message.parts.push({ type: 'step-start' }, { type: 'text', text: 'More.' })
    const steps = (message.metadata as { thinkwire: { steps: unknown[] } }).thinkwire.steps
    steps.push(unsealed, 'not a step', { model: 'x', usage: { inputTokens: 'many' } })
    const { continues } = translated({ messages: [hi, message] })
    expect(continues?.id).toBe('msg_a')
    // One record per step-start: the message has two.
    expect(continues?.earlier).toEqual([steps[0], unsealed])
    expect(translated({ messages: [hi] }).continues).toBeUndefined()
  })

  it('reads no records from metadata of another shape', () => {
    for (const metadata of [undefined, 'x', { thinkwire: 1 }, { thinkwire: { steps: {} } }]) {
      const message = { ...sentBack(), metadata }
      const { request, continues } = translated({ messages: [hi, message] })
      expect(request.conversation.turns[1]).not.toHaveProperty('items')
      expect(continues?.earlier).toEqual([null])
    }
  })
})

describe('any request body', () => {
  /** Keys that reach prototypes or name fields the translator reads. */
  const key = fc.oneof(
    fc.constantFrom('__proto__', 'constructor', 'type', 'text', 'role', 'parts', 'metadata'),
    fc.string({ maxLength: 6 }),
  )
  const json = fc.jsonValue({ maxDepth: 3 })
  const loose = fc.oneof(json, fc.dictionary(key, json, { maxKeys: 3 }))
  /** Mostly a plausible value, sometimes junk. */
  const maybe = <T>(arb: fc.Arbitrary<T>) =>
    fc.oneof({ arbitrary: arb, weight: 6 }, { arbitrary: loose, weight: 1 })
  const sealed = encodeSealedTurn(sealedTurn)
  const part = fc.oneof(
    fc.record({ type: maybe(fc.constantFrom('text', 'reasoning')), text: maybe(fc.string()) }),
    fc.record({ type: fc.constant('step-start') }),
    fc.record({
      type: maybe(fc.constant('file')),
      mediaType: maybe(fc.constantFrom('image/png', 'application/pdf')),
      url: maybe(fc.constantFrom('https://example.com/a.png', 'data:image/png;base64,aGk=', 'x')),
    }),
    fc.record({
      type: maybe(fc.constantFrom('tool-weather', 'dynamic-tool', 'tool-')),
      toolName: maybe(fc.constantFrom('time', '')),
      toolCallId: maybe(fc.constantFrom('call_1', 'c2', '')),
      state: maybe(fc.constantFrom('input-available', 'output-available', 'output-error')),
      input: json,
      output: json,
      errorText: maybe(fc.string()),
    }),
    loose,
  )
  const metadata = fc.oneof(
    fc.constant({ thinkwire: { steps: [{ model, usage: sealedTurn.usage, sealed }] } }),
    fc.record({ thinkwire: fc.record({ steps: fc.array(loose, { maxLength: 2 }) }) }),
    loose,
  )
  const message = fc.record(
    {
      id: maybe(fc.constantFrom('m1', 'msg_a')),
      role: maybe(fc.constantFrom('system', 'user', 'assistant')),
      parts: maybe(fc.array(part, { maxLength: 4 })),
      metadata,
    },
    { requiredKeys: ['role', 'parts'] },
  )
  const question = fc.record({
    id: fc.constant('u'),
    role: fc.constant('user'),
    parts: fc.array(
      fc.record({ type: fc.constant('text'), text: fc.string({ minLength: 1, maxLength: 6 }) }),
      { minLength: 1, maxLength: 2 },
    ),
  })
  const answer = metadata.map((value) => ({ ...sentBack(), metadata: value }))
  const plausible = fc.oneof(
    { arbitrary: question, weight: 3 },
    { arbitrary: answer, weight: 2 },
    { arbitrary: message, weight: 1 },
  )
  const body = fc.record(
    {
      id: maybe(fc.string()),
      model: maybe(fc.constantFrom(model, 'mock/echo', '')),
      messages: maybe(fc.array(plausible, { maxLength: 4 })),
      trigger: maybe(fc.constantFrom('submit-message', 'regenerate-message')),
      thinking: maybe(fc.constantFrom('low', 'off')),
    },
    { requiredKeys: ['model', 'messages'] },
  )

  it(
    'is translated or refused, never thrown on, and a refusal names the field it starts with',
    () => {
      let translatedBodies = 0
      fc.assert(
        fc.property(fc.oneof(body, loose), (value) => {
          const result = aiSdkDialect.parse(value, limits)
          if (result.ok) translatedBodies++
          else {
            expect(result.field).toEqual(expect.any(String))
            expect(result.message.startsWith(result.field!)).toBe(true)
            expect(result.field).not.toMatch(/^conversation/)
          }
        }),
        { numRuns: 400, seed: 20_260_705, plugins: timeBound() },
      )
      // Not only refusals: the success path is reached too.
      expect(translatedBodies).toBeGreaterThan(0)
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )
})
