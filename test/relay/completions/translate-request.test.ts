import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions'
import { describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import type { FieldTable } from '../../../src/core/wire.ts'
import {
  encodeReasoningDetails,
  rewriteField,
  translateCompletionRequest,
  type TranslatedRequest,
} from '../../../src/relay/completions/index.ts'
import { COMPLETION_FIELDS } from '../../../src/relay/completions/translate-request.ts'
import { completionsDialect } from '../../../src/relay/dialects.ts'
import { validateChatRequest, type RequestLimits } from '../../../src/relay/validate-request.ts'

const limits: RequestLimits = {
  turns: 20,
  tools: 4,
  maxTokens: 10_000,
  depth: 8,
  toolCalls: 4,
  toolResults: 4,
}
const model = 'anthropic/claude-sonnet-4-5'
const hi = { role: 'user', content: 'Hi' }

function translated(body: Record<string, unknown>): TranslatedRequest {
  const result = translateCompletionRequest({ model, ...body })
  if (!result.ok) throw new Error(result.message)
  return result
}

function refused(body: unknown) {
  const result = translateCompletionRequest(body)
  if (result.ok) throw new Error('expected the body to be refused')
  if (result.field !== undefined) expect(result.message.startsWith(result.field)).toBe(true)
  return result
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

/** The assistant message an OpenAI client sends back for `sealedTurn`. */
const sentBack = {
  role: 'assistant',
  content: 'Checking.',
  refusal: null,
  reasoning_content: 'ignored',
  tool_calls: [
    {
      id: 'call_1',
      type: 'function',
      // Same input, other key order and spacing: still the same call.
      function: { name: 'weather', arguments: '{ "days": [1, 2], "city": "Paris" }' },
    },
  ],
  reasoning_details: encodeReasoningDetails(sealedTurn),
}

describe('translateCompletionRequest', () => {
  it('translates every mapped field into a /v1/chat body', () => {
    const result = translated({
      messages: [hi],
      tools: [
        {
          type: 'function',
          function: {
            name: 'weather',
            description: 'Weather by city',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
            strict: true,
          },
        },
        { type: 'function', function: { name: 'now' } },
      ],
      tool_choice: { type: 'function', function: { name: 'weather' } },
      max_tokens: 50,
      max_completion_tokens: 100,
      temperature: 0.3,
      stop: 'END',
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
      },
      reasoning_effort: 'xhigh',
      stream: true,
      stream_options: { include_usage: true },
      n: 1,
    })
    expect(result).toEqual({
      ok: true,
      request: {
        model,
        conversation: { turns: [{ role: 'user', content: 'Hi' }] },
        tools: [
          {
            name: 'weather',
            description: 'Weather by city',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
          { name: 'now', parameters: { type: 'object', properties: {} } },
        ],
        toolChoice: { name: 'weather' },
        maxTokens: 100,
        temperature: 0.3,
        stop: ['END'],
        responseFormat: { type: 'json', name: 'answer', schema: { type: 'object' } },
        thinking: 'max',
      },
      stream: true,
      includeUsage: true,
      messageOfTurn: [0],
      notes: [],
    })
    expect(validateChatRequest(result.request, limits).ok).toBe(true)
  })

  it('leaves out what a minimal request does not set, and reads null as not set', () => {
    const result = translated({
      messages: [hi],
      temperature: null,
      stop: null,
      max_tokens: null,
      reasoning_effort: null,
      stream_options: null,
      n: null,
      tool_choice: null,
    })
    expect(result.request).toEqual({ model, conversation: { turns: [hi] } })
    expect(result.stream).toBe(false)
    expect(result.includeUsage).toBe(false)
  })

  it('maps each reasoning effort to a thinking level', () => {
    const level = (effort: string) =>
      translated({ messages: [hi], reasoning_effort: effort }).request.thinking
    expect(level('none')).toBe('off')
    expect(level('minimal')).toBe('low')
    expect(level('low')).toBe('low')
    expect(level('medium')).toBe('medium')
    expect(level('high')).toBe('high')
    expect(level('xhigh')).toBe('max')
    expect(translated({ messages: [hi] }).request.thinking).toBeUndefined()
    expect(refused({ model, messages: [hi], reasoning_effort: 'extreme' }).message).toBe(
      "reasoning_effort must be 'none', 'minimal', 'low', 'medium', 'high', 'xhigh' or 'max', got 'extreme'",
    )
  })

  it('maps response formats: text to nothing, json_object to json', () => {
    const format = (value: unknown) =>
      translated({ messages: [hi], response_format: value }).request.responseFormat
    expect(format({ type: 'text' })).toBeUndefined()
    expect(format({ type: 'json_object' })).toEqual({ type: 'json' })
    expect(format({ type: 'json_schema', json_schema: { name: 'x' } })).toEqual({
      type: 'json',
      name: 'x',
    })
    expect(refused({ model, messages: [hi], response_format: { type: 'grammar' } }).field).toBe(
      'response_format.type',
    )
  })

  it('takes a stop list and max_tokens alone', () => {
    const result = translated({ messages: [hi], stop: ['a', 'b'], max_tokens: 7 })
    expect(result.request.stop).toEqual(['a', 'b'])
    expect(result.request.maxTokens).toBe(7)
  })

  it('accepts and ignores every OpenAI field the relay does not map', () => {
    const result = translated({
      messages: [hi],
      user: 'u1',
      metadata: { a: 'b' },
      store: false,
      seed: 3,
      top_p: 0.9,
      frequency_penalty: 0,
      presence_penalty: 0,
      logit_bias: { '50256': -100 },
      logprobs: false,
      top_logprobs: 0,
      parallel_tool_calls: true,
      service_tier: 'auto',
      prediction: { type: 'content', content: 'x' },
      modalities: ['text'],
      audio: null,
      web_search_options: {},
      safety_identifier: 'h',
      prompt_cache_key: 'k',
      verbosity: 'low',
    })
    expect(result.request).toEqual({ model, conversation: { turns: [hi] } })
  })

  it('lists exactly the fields of the SDK request type', () => {
    // A field added to the SDK's type breaks this table's compilation until it is listed here.
    const sdkFields: FieldTable<ChatCompletionCreateParamsBase, true> = {
      messages: true,
      model: true,
      audio: true,
      frequency_penalty: true,
      function_call: true,
      functions: true,
      logit_bias: true,
      logprobs: true,
      max_completion_tokens: true,
      max_tokens: true,
      metadata: true,
      modalities: true,
      moderation: true,
      n: true,
      parallel_tool_calls: true,
      prediction: true,
      presence_penalty: true,
      prompt_cache_key: true,
      prompt_cache_options: true,
      prompt_cache_retention: true,
      reasoning_effort: true,
      response_format: true,
      safety_identifier: true,
      seed: true,
      service_tier: true,
      stop: true,
      store: true,
      stream: true,
      stream_options: true,
      temperature: true,
      tool_choice: true,
      tools: true,
      top_logprobs: true,
      top_p: true,
      user: true,
      verbosity: true,
      web_search_options: true,
    }
    expect(Object.keys(COMPLETION_FIELDS).toSorted()).toEqual(Object.keys(sdkFields).toSorted())
  })

  it('refuses a field that is not part of the OpenAI API, naming it', () => {
    for (const key of ['api_key', 'base_url', 'providerOptions', 'conversation', 'thinking']) {
      const result = refused({ model, messages: [hi], [key]: 'x' })
      expect(result.field).toBe(key)
      expect(result.code).toBe('unknown_parameter')
      expect(result.message).toContain('is not a field of the Chat Completions API')
    }
    // A key that JSON.parse made an own member is refused like any other.
    expect(refused(JSON.parse('{"model":"m","messages":[],"__proto__":{"x":1}}')).field).toBe(
      '__proto__',
    )
  })

  it('refuses more than one answer', () => {
    expect(refused({ model, messages: [hi], n: 2 })).toEqual({
      ok: false,
      field: 'n',
      message: 'n must be 1: the relay makes one answer per request',
    })
  })

  it('refuses a body that is not an object, with no param', () => {
    expect(refused([])).toMatchObject({
      field: undefined,
      message: 'body must be a JSON object, got an array',
    })
    expect(refused(null).field).toBeUndefined()
  })

  it('joins system and developer messages, strings or text parts, with a blank line', () => {
    const result = translated({
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'developer',
          content: [
            { type: 'text', text: 'Answer in ' },
            { type: 'text', text: 'French.' },
          ],
        },
        hi,
        { role: 'system', content: '' },
      ],
    })
    expect(result.request.conversation).toEqual({
      system: 'Be brief.\n\nAnswer in French.',
      turns: [hi],
    })
    expect(result.messageOfTurn).toEqual([2])
  })

  it('translates user text and image parts', () => {
    const result = translated({
      messages: [
        {
          role: 'user',
          name: 'ann',
          content: [
            { type: 'text', text: 'What is this?' },
            {
              type: 'image_url',
              image_url: { url: 'data:image/PNG;base64,iVBORw0KGgo=', detail: 'low' },
            },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    })
    expect(result.request.conversation.turns).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
          { type: 'image', url: 'https://example.com/cat.jpg' },
        ],
      },
    ])
  })

  it('refuses user parts it cannot carry, naming the part', () => {
    const part = (value: unknown) =>
      refused({
        model,
        messages: [hi, hi, hi, { role: 'user', content: [{ type: 'text', text: 'a' }, value] }],
      })
    expect(part({ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } })).toMatchObject({
      field: 'messages[3].content[1].type',
      message: "messages[3].content[1].type must be 'text' or 'image_url', got 'input_audio'",
    })
    expect(part({ type: 'file', file: { file_id: 'f' } }).field).toBe('messages[3].content[1].type')
    expect(
      part({ type: 'image_url', image_url: { url: 'data:text/plain;base64,aGk=' } }),
    ).toMatchObject({
      field: 'messages[3].content[1].image_url.url',
    })
    expect(part({ type: 'image_url' }).field).toBe('messages[3].content[1].image_url')
  })

  it('translates an assistant message with tool calls and the tool messages that answer it', () => {
    const result = translated({
      messages: [
        hi,
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'weather', arguments: '{"city":"Paris"}' },
            },
            { id: 'c2', type: 'function', function: { name: 'now', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'Sunny' },
        {
          role: 'tool',
          tool_call_id: 'c2',
          content: [
            { type: 'text', text: '12:' },
            { type: 'text', text: '00' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Sunny at ' },
            { type: 'refusal', refusal: 'x' },
            { type: 'text', text: 'noon.' },
          ],
          annotations: [],
          audio: null,
        },
        { role: 'user', content: 'Thanks' },
      ],
    })
    expect(result.request.conversation.turns).toEqual([
      hi,
      {
        role: 'assistant',
        text: '',
        toolCalls: [
          { id: 'c1', name: 'weather', input: { city: 'Paris' } },
          { id: 'c2', name: 'now', input: {} },
        ],
        usage: { inputTokens: 0, outputTokens: 0 },
        stopReason: 'tool-calls',
      },
      {
        role: 'tool',
        results: [
          { callId: 'c1', name: 'weather', output: 'Sunny' },
          { callId: 'c2', name: 'now', output: '12:00' },
        ],
      },
      {
        role: 'assistant',
        text: 'Sunny at noon.',
        usage: { inputTokens: 0, outputTokens: 0 },
        stopReason: 'stop',
      },
      { role: 'user', content: 'Thanks' },
    ])
    expect(result.messageOfTurn).toEqual([0, 1, 2, 4, 5])
    expect(result.notes).toEqual([])
    expect(validateChatRequest(result.request, limits).ok).toBe(true)
  })

  it('refuses tool call arguments that are not JSON, naming them', () => {
    const result = refused({
      model,
      messages: [
        hi,
        {
          role: 'assistant',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":' } }],
        },
      ],
    })
    expect(result).toMatchObject({
      field: 'messages[1].tool_calls[0].function.arguments',
      message: 'messages[1].tool_calls[0].function.arguments must be a JSON text',
    })
  })

  it('refuses a tool message whose call no earlier message made', () => {
    expect(
      refused({ model, messages: [hi, { role: 'tool', tool_call_id: 'nope', content: 'x' }] }),
    ).toMatchObject({
      field: 'messages[1].tool_call_id',
      message: "messages[1].tool_call_id 'nope' matches no tool call of an earlier message",
    })
  })

  it('refuses other roles, tool types and tool choices, naming the field', () => {
    expect(
      refused({ model, messages: [{ role: 'function', name: 'f', content: 'x' }] }).message,
    ).toBe(
      "messages[0].role must be 'system', 'developer', 'user', 'assistant' or 'tool', got 'function'",
    )
    expect(
      refused({ model, messages: [hi], tools: [{ type: 'custom', custom: { name: 'x' } }] }).field,
    ).toBe('tools[0].type')
    expect(
      refused({ model, messages: [hi], tool_choice: { type: 'allowed_tools', allowed_tools: {} } })
        .field,
    ).toBe('tool_choice.type')
    expect(refused({ model, messages: [hi], tool_choice: 'any' }).field).toBe('tool_choice')
    expect(refused({ model, messages: 'Hi' }).field).toBe('messages')
    expect(refused({ messages: [hi] }).field).toBe('model')
    expect(refused({ model, messages: [hi], stream: 'yes' }).field).toBe('stream')
    expect(refused({ model, messages: [hi], max_tokens: '5' }).field).toBe('max_tokens')
    expect(refused({ model, messages: [hi], stream_options: { include_usage: 1 } }).field).toBe(
      'stream_options.include_usage',
    )
  })
})

describe('translateCompletionRequest with reasoning_details', () => {
  it('replays the sealed turn when its text and tool calls are the message’s', () => {
    const result = translated({ messages: [hi, sentBack] })
    expect(result.request.conversation.turns[1]).toEqual({
      role: 'assistant',
      text: sealedTurn.text,
      thinking: sealedTurn.thinking,
      toolCalls: sealedTurn.toolCalls,
      items: sealedTurn.items,
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'tool-calls',
    })
    expect(result.notes).toEqual([])
  })

  it('builds the turn from the message, with a note, when the text was changed', () => {
    const result = translated({ messages: [hi, { ...sentBack, content: 'Changed.' }] })
    const turn = result.request.conversation.turns[1]
    expect(turn).toMatchObject({ role: 'assistant', text: 'Changed.' })
    expect(turn).not.toHaveProperty('items')
    expect(turn).not.toHaveProperty('thinking')
    expect(result.notes).toEqual([
      'messages[1].reasoning_details dropped: its text is not messages[1].content',
    ])
    // The note names fields, never what the client wrote.
    expect(result.notes.join()).not.toContain('Changed')
  })

  it('builds the turn from the message, with a note, when a tool call was changed', () => {
    const changed = (call: Record<string, unknown>) =>
      translated({
        messages: [hi, { ...sentBack, tool_calls: [{ ...sentBack.tool_calls[0], ...call }] }],
      }).notes
    const note = [
      'messages[1].reasoning_details dropped: its tool calls are not messages[1].tool_calls',
    ]
    expect(changed({ id: 'call_2' })).toEqual(note)
    expect(
      changed({ function: { name: 'weather', arguments: '{"city":"Rome","days":[1,2]}' } }),
    ).toEqual(note)
    expect(
      changed({ function: { name: 'other', arguments: '{"city":"Paris","days":[1,2]}' } }),
    ).toEqual(note)
    expect(translated({ messages: [hi, { ...sentBack, tool_calls: undefined }] }).notes).toEqual(
      note,
    )
  })

  it('notes reasoning_details that hold no entry of its own, or one that does not decode', () => {
    const other = [{ type: 'reasoning.text', text: 'x', format: 'anthropic-claude-v1' }]
    expect(translated({ messages: [hi, { ...sentBack, reasoning_details: other }] }).notes).toEqual(
      ['messages[1].reasoning_details dropped: it holds no thinkwire-v1 entry'],
    )
    const broken = [{ type: 'reasoning.encrypted', format: 'thinkwire-v1', data: 'bm90IGpzb24' }]
    expect(
      translated({ messages: [hi, { ...sentBack, reasoning_details: broken }] }).notes,
    ).toEqual(['messages[1].reasoning_details dropped: its thinkwire-v1 entry does not decode'])
    const noData = [{ type: 'reasoning.encrypted', format: 'thinkwire-v1', data: 3 }]
    expect(
      translated({ messages: [hi, { ...sentBack, reasoning_details: noData }] }).notes,
    ).toEqual(['messages[1].reasoning_details dropped: its thinkwire-v1 entry does not decode'])
    // No reasoning_details at all: nothing was dropped.
    expect(translated({ messages: [hi, { role: 'assistant', content: 'Hello' }] }).notes).toEqual(
      [],
    )
  })
})

describe('rewriteField', () => {
  const messageOfTurn = [1, 2, 4, 6]
  it.each([
    ['conversation.turns[0]', 'messages[1]'],
    ['conversation.turns[0].content', 'messages[1].content'],
    ['conversation.turns[0].content[2].text', 'messages[1].content[2].text'],
    ['conversation.turns[0].content[2].url', 'messages[1].content[2].image_url.url'],
    ['conversation.turns[0].content[2].data', 'messages[1].content[2].image_url.url'],
    ['conversation.turns[0].content[2].mediaType', 'messages[1].content[2].image_url.url'],
    ['conversation.turns[1].text', 'messages[2].content'],
    ['conversation.turns[1].role', 'messages[2].role'],
    ['conversation.turns[1].toolCalls', 'messages[2].tool_calls'],
    ['conversation.turns[1].toolCalls[1]', 'messages[2].tool_calls[1]'],
    ['conversation.turns[1].toolCalls[1].id', 'messages[2].tool_calls[1].id'],
    ['conversation.turns[1].toolCalls[1].name', 'messages[2].tool_calls[1].function.name'],
    ['conversation.turns[1].toolCalls[1].input', 'messages[2].tool_calls[1].function.arguments'],
    ['conversation.turns[1].items.data', 'messages[2].reasoning_details'],
    ['conversation.turns[1].thinking', 'messages[2].reasoning_details'],
    ['conversation.turns[2]', 'messages[4]'],
    ['conversation.turns[2].results', 'messages[4]'],
    ['conversation.turns[2].results[1]', 'messages[5]'],
    ['conversation.turns[2].results[1].callId', 'messages[5].tool_call_id'],
    ['conversation.turns[2].results[1].output', 'messages[5].content'],
    ['conversation.turns[9].text', 'messages'],
    ['conversation.turns', 'messages'],
    ['conversation', 'messages'],
    ['maxTokens', 'max_completion_tokens'],
    ['toolChoice', 'tool_choice'],
    ['toolChoice.name', 'tool_choice.function.name'],
    ['responseFormat.type', 'response_format.type'],
    ['responseFormat.name', 'response_format.json_schema.name'],
    ['responseFormat.schema.type', 'response_format.json_schema.schema.type'],
    ['thinking', 'reasoning_effort'],
    ['thinking.budgetTokens', 'reasoning_effort'],
    ['stop[3]', 'stop[3]'],
    ['temperature', 'temperature'],
    ['tools', 'tools'],
    ['tools[0].name', 'tools[0].function.name'],
    ['tools[0].parameters.type', 'tools[0].function.parameters.type'],
    ['model', 'model'],
  ])('%s → %s', (field, expected) => {
    expect(rewriteField(field, messageOfTurn)).toBe(expected)
  })

  it('rewrites validateChatRequest’s refusal of a translated request into OpenAI terms', () => {
    const body = {
      model,
      messages: [
        { role: 'system', content: 'S' },
        hi,
        {
          role: 'assistant',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
        { role: 'assistant', content: '' },
      ],
    }
    expect(completionsDialect.parse(body, limits)).toEqual({
      ok: false,
      field: 'messages[4].content',
      message:
        "messages[4].content must not be empty when the turn has no toolCalls or items (unless its stopReason is 'aborted')",
    })
  })
})
