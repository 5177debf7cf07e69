/**
 * The Messages API request → the `/v1/chat` body, field by field: what is mapped, ignored and
 * refused (each refusal naming the field as Anthropic names it), the relay's own checks named in
 * Anthropic's terms, and the sealed block coming back.
 */
import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages/messages'
import { describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import type { FieldTable } from '../../../src/core/wire.ts'
import {
  MESSAGES_FIELDS,
  messagesDialect,
  sealedBlock,
  translateMessagesRequest,
  type TranslatedMessagesRequest,
} from '../../../src/relay/anthropic-messages/index.ts'
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
const hi = { role: 'user', content: 'Hi' }
const base = { model, max_tokens: 1024 }

function translated(body: Record<string, unknown>): TranslatedMessagesRequest {
  const result = translateMessagesRequest({ ...base, ...body })
  if (!result.ok) throw new Error(result.message)
  return result
}

/** The refusal of `body` (with `model` and `max_tokens` unless it says otherwise). */
function refused(body: Record<string, unknown>, whole = false) {
  const result = translateMessagesRequest(whole ? body : { ...base, ...body })
  if (result.ok) throw new Error('expected the body to be refused')
  if (result.field !== undefined) expect(result.message.startsWith(result.field)).toBe(true)
  return result
}

/** The dialect's refusal of `body`: the translation's, or the relay's own checks, in Anthropic's terms. */
function parsedRefusal(body: Record<string, unknown>) {
  const result = messagesDialect.parse({ ...base, ...body }, limits)
  if (result.ok) throw new Error('expected the body to be refused')
  expect(result.message.startsWith(result.field!)).toBe(true)
  return { field: result.field, message: result.message }
}

const sealedTurn: AssistantTurn = {
  role: 'assistant',
  text: 'Checking.',
  thinking: 'The user wants the weather.',
  toolCalls: [{ id: 'toolu_1', name: 'get_weather', input: { city: 'Paris', days: [1, 2] } }],
  usage: { inputTokens: 10, outputTokens: 5 },
  stopReason: 'tool-calls',
  items: {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    thinkingMode: 'high',
    data: [{ type: 'thinking', thinking: 'The user…', signature: 'EqQBCkYIBx==' }],
    seal: 's1.AAAAAAAA.mac',
  },
}
/** The answer's content as a client got it: shown thinking, text, the call, the sealed block. */
const answered = [
  { type: 'thinking', thinking: 'The user wants the weather.', signature: '' },
  { type: 'text', text: 'Checking.' },
  { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { days: [1, 2], city: 'Paris' } },
  sealedBlock(sealedTurn)!,
]
const weatherTool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } } },
}
const result = (content: unknown) => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content }],
})

describe('translateMessagesRequest: mapped fields', () => {
  it('maps a plain request, with stream false unless asked', () => {
    expect(translated({ messages: [hi] })).toEqual({
      ok: true,
      request: { model, conversation: { turns: [hi] }, maxTokens: 1024 },
      stream: false,
      sources: [{ message: 0, blocks: [] }],
      notes: [],
    })
    expect(translated({ messages: [hi], stream: true }).stream).toBe(true)
  })

  it('joins the system prompt, its text blocks and system messages a paragraph apart', () => {
    const { request } = translated({
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Answer in French.' },
      ],
      messages: [{ role: 'system', content: 'No emoji.' }, hi],
    })
    expect(request.conversation.system).toBe('Be brief.\n\nAnswer in French.\n\nNo emoji.')
    expect(translated({ system: '', messages: [hi] }).request.conversation).toEqual({
      turns: [hi],
    })
  })

  it('maps user text and image blocks, base64 and by URL', () => {
    const { request, sources } = translated({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
          ],
        },
      ],
    })
    expect(request.conversation.turns).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', mediaType: 'image/png', data: 'iVBO' },
          { type: 'image', url: 'https://example.com/a.jpg' },
        ],
      },
    ])
    expect(sources).toEqual([{ message: 0, blocks: [0, 1, 2] }])
  })

  it('maps tool_use blocks to tool calls and tool_result blocks to a tool turn before the user’s text', () => {
    const { request, sources } = translated({
      tools: [weatherTool],
      messages: [
        hi,
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_2',
              content: [
                { type: 'text', text: 'rain' },
                { type: 'text', text: '12 °C' },
              ],
              is_error: false,
            },
            { type: 'text', text: 'And tomorrow?' },
          ],
        },
      ],
    })
    expect(request.conversation.turns.slice(1)).toEqual([
      {
        role: 'assistant',
        text: 'Let me check.',
        toolCalls: [
          { id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
        ],
        usage: { inputTokens: 0, outputTokens: 0 },
        stopReason: 'tool-calls',
      },
      {
        role: 'tool',
        results: [
          { callId: 'toolu_1', name: 'get_weather', output: 'sunny' },
          { callId: 'toolu_2', name: 'get_weather', output: 'rain\n12 °C', isError: false },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'And tomorrow?' }] },
    ])
    expect(sources.slice(1)).toEqual([
      { message: 1, blocks: [1, 2] },
      { message: 2, blocks: [0, 1] },
      { message: 2, blocks: [2] },
    ])
  })

  it('takes an assistant message given as a string, and a tool result without content', () => {
    const { request } = translated({
      messages: [
        hi,
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'Call it.' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'ping', input: {} }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1' }] },
      ],
    })
    expect(request.conversation.turns[1]).toMatchObject({ role: 'assistant', text: 'Hello!' })
    expect(request.conversation.turns[4]).toEqual({
      role: 'tool',
      results: [{ callId: 'toolu_1', name: 'ping', output: '' }],
    })
  })

  it('maps max_tokens, temperature, stop_sequences, tools and tool_choice', () => {
    const { request } = translated({
      messages: [hi],
      temperature: 0.3,
      stop_sequences: ['END', '###'],
      tools: [weatherTool, { type: 'custom', name: 'ping', input_schema: { type: 'object' } }],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    })
    expect(request).toMatchObject({
      maxTokens: 1024,
      temperature: 0.3,
      stop: ['END', '###'],
      tools: [
        {
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: weatherTool.input_schema,
        },
        { name: 'ping', parameters: { type: 'object' } },
      ],
      toolChoice: 'auto',
    })
    const choice = (tool_choice: unknown) =>
      translated({ messages: [hi], tools: [weatherTool], tool_choice }).request.toolChoice
    expect(choice({ type: 'any' })).toBe('required')
    expect(choice({ type: 'none' })).toBe('none')
    expect(choice({ type: 'tool', name: 'get_weather' })).toEqual({ name: 'get_weather' })
  })

  it.each([
    [{ type: 'enabled', budget_tokens: 2048 }, undefined, { budgetTokens: 2048 }],
    [{ type: 'adaptive' }, undefined, 'high'],
    [{ type: 'adaptive', display: 'summarized' }, 'low', 'low'],
    [{ type: 'adaptive' }, 'xhigh', 'max'],
    [{ type: 'disabled' }, undefined, 'off'],
    [{ type: 'disabled' }, 'high', 'off'],
    [undefined, 'medium', 'medium'],
    [undefined, 'max', 'max'],
    [{ type: 'enabled', budget_tokens: 4000 }, 'low', { budgetTokens: 4000 }],
  ])('maps thinking %o with effort %s to %o', (thinking, effort, expected) => {
    const body: Record<string, unknown> = { messages: [hi] }
    if (thinking !== undefined) body['thinking'] = thinking
    if (effort !== undefined) body['output_config'] = { effort }
    expect(translated(body).request.thinking).toEqual(expected)
  })

  it('leaves thinking to the model when neither thinking nor an effort is given', () => {
    expect(translated({ messages: [hi], output_config: {} }).request).not.toHaveProperty('thinking')
  })

  it('maps output_config.format to JSON output with its schema', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } } }
    expect(
      translated({ messages: [hi], output_config: { format: { type: 'json_schema', schema } } })
        .request.responseFormat,
    ).toEqual({ type: 'json', schema })
  })

  it('turns prompt caching on for a cache_control on the request or on any block', () => {
    expect(translated({ messages: [hi] }).request).not.toHaveProperty('cache')
    expect(translated({ messages: [hi], cache_control: { type: 'ephemeral' } }).request.cache).toBe(
      true,
    )
    expect(
      translated({
        system: [
          { type: 'text', text: 'Long rules.', cache_control: { type: 'ephemeral', ttl: '1h' } },
        ],
        messages: [hi],
      }).request.cache,
    ).toEqual({ ttl: '1h' })
    // The request's own mark says how, over the blocks'.
    expect(
      translated({
        cache_control: { type: 'ephemeral', ttl: '5m' },
        tools: [{ ...weatherTool, cache_control: { type: 'ephemeral', ttl: '1h' } }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: null }] }],
      }).request.cache,
    ).toEqual({ ttl: '5m' })
  })
})

describe('translateMessagesRequest: ignored and refused fields', () => {
  it('ignores the fields real clients send that the relay does not map, and null for unset', () => {
    const { request } = translated({
      messages: [hi],
      metadata: { user_id: 'u-1' },
      service_tier: 'auto',
      speed: 'fast',
      inference_geo: 'us',
      diagnostics: { previous_message_id: 'msg_1' },
      user_profile_id: 'p',
      workspace_id: 'w',
      top_k: 5,
      top_p: 0.9,
      container: null,
      system: null,
      tools: null,
      thinking: null,
    })
    expect(request).toEqual({ model, conversation: { turns: [hi] }, maxTokens: 1024 })
  })

  it('lists exactly the fields of the SDK request type, and the three the API still takes', () => {
    // A field added to the SDK's type breaks this table's compilation until it is listed here.
    const sdkFields: FieldTable<MessageCreateParamsBase, true> = {
      model: true,
      messages: true,
      max_tokens: true,
      cache_control: true,
      container: true,
      diagnostics: true,
      inference_geo: true,
      metadata: true,
      output_config: true,
      service_tier: true,
      speed: true,
      stop_sequences: true,
      stream: true,
      system: true,
      thinking: true,
      tool_choice: true,
      tools: true,
      user_profile_id: true,
      workspace_id: true,
    }
    const older = ['temperature', 'top_k', 'top_p']
    expect(Object.keys(MESSAGES_FIELDS).toSorted()).toEqual(
      [...Object.keys(sdkFields), ...older].toSorted(),
    )
  })

  it('refuses a field that is not part of the Messages API, naming it', () => {
    for (const key of ['api_key', 'base_url', 'providerOptions', 'conversation', 'betas']) {
      const refusal = refused({ messages: [hi], [key]: 'x' })
      expect(refusal.field).toBe(key)
      expect(refusal.message).toContain('is not a field of the Messages API')
    }
    expect(
      refused(JSON.parse('{"model":"m","max_tokens":1,"messages":[],"__proto__":{"x":1}}'), true)
        .field,
    ).toBe('__proto__')
  })

  it('refuses a container: provider state is not the client’s to pick', () => {
    expect(refused({ messages: [hi], container: 'container_1' })).toEqual({
      ok: false,
      field: 'container',
      message: 'container is not served: the relay keeps no provider container for a client',
    })
  })

  it('refuses a request without max_tokens, as Anthropic does', () => {
    expect(refused({ model, messages: [hi] }, true)).toEqual({
      ok: false,
      field: 'max_tokens',
      message: 'max_tokens is required (the Messages API requires it)',
    })
  })

  it('refuses a body that is not an object, with no field', () => {
    expect(refused([] as unknown as Record<string, unknown>, true)).toEqual({
      ok: false,
      field: undefined,
      message: 'body must be a JSON object, got an array',
    })
  })

  const tooled = (content: unknown[]) => [hi, { role: 'assistant', content }, result('sunny')]
  it.each<[string, Record<string, unknown>, string]>([
    ['a model that is not a string', { model: 3, messages: [hi] }, 'model'],
    ['max_tokens that is not a number', { max_tokens: '1024', messages: [hi] }, 'max_tokens'],
    ['messages that are not an array', { messages: 'Hi' }, 'messages'],
    ['a role it does not know', { messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].role'],
    [
      'content that is neither text nor blocks',
      { messages: [{ role: 'user', content: 3 }] },
      'messages[0].content',
    ],
    [
      'a document block',
      { messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] },
      'messages[0].content[0].type',
    ],
    [
      'a text block without text',
      { messages: [{ role: 'user', content: [{ type: 'text' }] }] },
      'messages[0].content[0].text',
    ],
    [
      'an image from the Files API',
      {
        messages: [
          { role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] },
        ],
      },
      'messages[0].content[0].source.type',
    ],
    [
      'a tool result for no earlier call',
      { messages: [hi, result('sunny')] },
      'messages[1].content[0].tool_use_id',
    ],
    [
      'an image in a tool result',
      {
        messages: tooled([{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }]).map((m, i) =>
          i === 2
            ? result([{ type: 'image', source: { type: 'url', url: 'https://x.test/a.png' } }])
            : m,
        ),
      },
      'messages[2].content[0].content[0].type',
    ],
    [
      'an is_error that is not a boolean',
      {
        messages: [
          hi,
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }],
          },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: 'yes' }],
          },
        ],
      },
      'messages[2].content[0].is_error',
    ],
    [
      'a tool_use without input',
      { messages: tooled([{ type: 'tool_use', id: 'toolu_1', name: 'f' }]) },
      'messages[1].content[0].input',
    ],
    [
      'a server tool block in an answer',
      {
        messages: [
          hi,
          {
            role: 'assistant',
            content: [{ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }],
          },
        ],
      },
      'messages[1].content[0].type',
    ],
    [
      'a thinking block whose signature is not a string',
      {
        messages: [
          hi,
          { role: 'assistant', content: [{ type: 'thinking', thinking: '', signature: 3 }] },
        ],
      },
      'messages[1].content[0].signature',
    ],
    [
      'a redacted thinking block without data',
      { messages: [hi, { role: 'assistant', content: [{ type: 'redacted_thinking' }] }] },
      'messages[1].content[0].data',
    ],
    [
      'a system prompt that is not text',
      { system: [{ type: 'image' }], messages: [hi] },
      'system[0].type',
    ],
    [
      'a cache mark of another kind',
      { cache_control: { type: 'persistent' }, messages: [hi] },
      'cache_control.type',
    ],
    [
      'a cache mark with an unknown ttl',
      {
        messages: [
          {
            role: 'user',
            content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1d' } }],
          },
        ],
      },
      'messages[0].content[0].cache_control.ttl',
    ],
    [
      'a server tool',
      { tools: [{ type: 'web_search_20250305', name: 'web_search' }], messages: [hi] },
      'tools[0].type',
    ],
    [
      'a tool without input_schema',
      { tools: [{ name: 'f' }], messages: [hi] },
      'tools[0].input_schema',
    ],
    [
      'a tool_choice of another type',
      { tool_choice: { type: 'required' }, messages: [hi] },
      'tool_choice.type',
    ],
    [
      'a named tool_choice without a name',
      { tool_choice: { type: 'tool' }, messages: [hi] },
      'tool_choice.name',
    ],
    [
      'thinking of a type the relay does not serve',
      { thinking: { type: 'between_tools' }, messages: [hi] },
      'thinking.type',
    ],
    [
      'a budget that is not a number',
      { thinking: { type: 'enabled' }, messages: [hi] },
      'thinking.budget_tokens',
    ],
    [
      'an effort it does not know',
      { output_config: { effort: 'extreme' }, messages: [hi] },
      'output_config.effort',
    ],
    [
      'an output format other than a JSON schema',
      { output_config: { format: { type: 'text' } }, messages: [hi] },
      'output_config.format.type',
    ],
    [
      'stop_sequences that are not strings',
      { stop_sequences: ['a', 1], messages: [hi] },
      'stop_sequences[1]',
    ],
    ['a temperature that is not a number', { temperature: 'warm', messages: [hi] }, 'temperature'],
    ['a stream flag that is not a boolean', { stream: 'yes', messages: [hi] }, 'stream'],
  ])('refuses %s, naming %s', (_, body, field) => {
    expect(refused(body).field).toBe(field)
  })
})

describe('messagesDialect: the relay’s own checks in Anthropic’s terms', () => {
  const deep = { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } }
  it.each<[string, Record<string, unknown>, string, string]>([
    [
      'an empty message',
      { messages: [{ role: 'user', content: '' }] },
      'messages[0].content',
      'must not be empty',
    ],
    ['no messages', { messages: [] }, 'messages', 'must not be empty'],
    [
      'an image of a type that is not an image',
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'See:' },
              { type: 'image', source: { type: 'base64', media_type: 'text/html', data: 'PGI+' } },
            ],
          },
        ],
      },
      'messages[0].content[1].source.media_type',
      'must be an image type',
    ],
    [
      'an empty text block after a tool result',
      {
        tools: [weatherTool],
        messages: [
          hi,
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' },
              { type: 'text', text: '' },
            ],
          },
        ],
      },
      'messages[2].content[1].text',
      'must not be empty',
    ],
    [
      'a tool input nested too deep',
      {
        messages: [
          hi,
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'x' },
              { type: 'tool_use', id: 'toolu_1', name: 'f', input: deep },
            ],
          },
          result('ok'),
        ],
      },
      'messages[1].content[1].input',
      'nests deeper',
    ],
    [
      'a tool answered twice',
      {
        messages: [
          hi,
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: 'a' },
              { type: 'tool_result', tool_use_id: 'toolu_1', content: 'b' },
            ],
          },
        ],
      },
      'messages[2].content[1].tool_use_id',
      'is answered already',
    ],
    [
      'calls left without results at the end',
      {
        messages: [
          hi,
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }],
          },
        ],
      },
      'messages[1].content[0]',
      'has no result',
    ],
    ['a max_tokens of 0', { max_tokens: 0, messages: [hi] }, 'max_tokens', 'must be between 1'],
    [
      'a budget of 0',
      { thinking: { type: 'enabled', budget_tokens: 0 }, messages: [hi] },
      'thinking.budget_tokens',
      'must be between 1',
    ],
    [
      'an empty stop sequence',
      { stop_sequences: [''], messages: [hi] },
      'stop_sequences[0]',
      'must not be empty',
    ],
    [
      'a temperature out of range',
      { temperature: 3, messages: [hi] },
      'temperature',
      'must be between 0 and 2',
    ],
    [
      'a tool name with spaces',
      { tools: [{ ...weatherTool, name: 'get weather' }], messages: [hi] },
      'tools[0].name',
      'must match',
    ],
    [
      'a tool schema that is not an object schema',
      { tools: [{ ...weatherTool, input_schema: { type: 'array' } }], messages: [hi] },
      'tools[0].input_schema.type',
      "must be 'object'",
    ],
    [
      'a tool_choice naming no tool',
      { tools: [weatherTool], tool_choice: { type: 'tool', name: 'nope' }, messages: [hi] },
      'tool_choice.name',
      'names no tool',
    ],
    [
      'an output schema that is not an object schema',
      {
        output_config: { format: { type: 'json_schema', schema: { type: 'string' } } },
        messages: [hi],
      },
      'output_config.format.schema.type',
      "must be 'object'",
    ],
  ])('names %s as %s', (_, body, field, problem) => {
    const refusal = parsedRefusal(body)
    expect(refusal.field).toBe(field)
    expect(refusal.message).toContain(problem)
  })
})

describe('translateMessagesRequest: the sealed block', () => {
  it('rebuilds exactly the sealed turn from a message sent back as it came, in any position', () => {
    for (const content of [answered, [answered[3]!, ...answered.slice(0, 3)]]) {
      const { request, notes, sources } = translated({
        tools: [weatherTool],
        messages: [hi, { role: 'assistant', content }, result('sunny')],
      })
      expect(notes).toEqual([])
      expect(request.conversation.turns[1]).toEqual({
        ...sealedTurn,
        usage: { inputTokens: 0, outputTokens: 0 },
      })
      expect(sources[1]!.sealed).toBe(content.indexOf(answered[3]!))
    }
  })

  it('never takes shown or redacted thinking as the turn’s', () => {
    const { request } = translated({
      messages: [
        hi,
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Shown.', signature: 'EqQBCkYI' },
            { type: 'redacted_thinking', data: 'EmwKAhgB' },
            { type: 'text', text: 'Hello.' },
          ],
        },
        hi,
      ],
    })
    expect(request.conversation.turns[1]).toEqual({
      role: 'assistant',
      text: 'Hello.',
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'stop',
    })
  })

  it.each<[string, unknown[], string]>([
    [
      'its text was changed',
      answered.map((block) => (block.type === 'text' ? { ...block, text: 'Changed.' } : block)),
      'its text is not the text blocks of messages[1].content',
    ],
    [
      'a tool call was changed',
      answered.map((block) =>
        block.type === 'tool_use' ? { ...block, input: { city: 'Rome', days: [1, 2] } } : block,
      ),
      'its tool calls are not the tool_use blocks of messages[1].content',
    ],
    [
      'its record does not decode',
      answered.map((block) =>
        block === answered[3] ? { ...block, signature: 'thinkwire-v1.not+base64' } : block,
      ),
      'it does not decode to a sealed turn',
    ],
  ])(
    'drops the record with a note when %s, and keeps the message’s text and calls',
    (_, content, reason) => {
      const { request, notes } = translated({
        tools: [weatherTool],
        messages: [hi, { role: 'assistant', content }, result('sunny')],
      })
      expect(notes).toEqual([`messages[1].content[3].signature dropped: ${reason}`])
      const turn = request.conversation.turns[1] as AssistantTurn
      expect(turn.items).toBeUndefined()
      expect(turn.thinking).toBeUndefined()
      const shown = content.flatMap((b) => ((b as { type: string }).type === 'text' ? [b] : []))
      expect(turn.text).toBe((shown[0] as { text: string }).text)
      expect(turn.toolCalls).toEqual(
        [content[2]].map((b) => {
          const { id, name, input } = b as { id: string; name: string; input: unknown }
          return { id, name, input }
        }),
      )
    },
  )
})
