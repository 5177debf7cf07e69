/**
 * `translateResponsesRequest` field by field: what each Responses field becomes in a `/v1/chat`
 * body, what is accepted and ignored, what is refused (naming the field), and how a sealed
 * reasoning item sent back in `input` becomes the turn it sealed, or is dropped with a note.
 */
import type { ResponseCreateParamsBase } from 'openai/resources/responses/responses'
import { describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import type { FieldTable } from '../../../src/core/wire.ts'
import {
  RESPONSES_FIELDS,
  responsesDialect,
  SEALED_TURN_PREFIX,
  sealedReasoningItem,
  translateResponsesRequest,
  type TranslatedResponsesRequest,
} from '../../../src/relay/openai-responses/index.ts'
import { encodeSealedTurn } from '../../../src/relay/sealed-turn.ts'
import type { RequestLimits } from '../../../src/relay/validate-request.ts'

const model = 'anthropic/claude-sonnet-4-5'
const limits: RequestLimits = {
  turns: 20,
  tools: 4,
  maxTokens: 10_000,
  depth: 8,
  toolCalls: 4,
  toolResults: 4,
}

function translated(body: Record<string, unknown>): TranslatedResponsesRequest {
  const result = translateResponsesRequest({ model, ...body })
  if (!result.ok) throw new Error(result.message)
  return result
}

function refused(body: unknown) {
  const result = translateResponsesRequest(body)
  if (result.ok) throw new Error('expected the body to be refused')
  if (result.field !== undefined) expect(result.message.startsWith(result.field)).toBe(true)
  return result
}

/** What the dialect answers for `body` (the translation, then the relay's own checks). */
function parsed(body: Record<string, unknown>) {
  return responsesDialect.parse({ model, ...body }, limits)
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
    thinkingMode: 'high',
    data: [{ type: 'thinking', thinking: 'The user wants the weather.', signature: 'c2ln' }],
    seal: 's1.AAAAAAAA.mac',
  },
}

const question = { role: 'user', content: 'Weather in Paris?' }
const summary = {
  id: 'rs_1',
  type: 'reasoning',
  summary: [{ type: 'summary_text', text: 'The user wants the weather.' }],
  status: 'completed',
}
const message = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  status: 'completed',
  content: [
    { type: 'output_text', text: 'Checking.', annotations: [], logprobs: [], parsed: null },
  ],
}
// Same input, other key order and spacing: still the same call.
const call = {
  id: 'fc_1',
  type: 'function_call',
  call_id: 'call_1',
  name: 'weather',
  arguments: '{ "days": [1, 2], "city": "Paris" }',
  status: 'completed',
  parsed_arguments: null,
}
const sealed = sealedReasoningItem(sealedTurn, 'rs_2')!
/** The same answer's record as earlier versions wrote it: the whole turn. */
const sealedWhole = {
  ...sealed,
  encrypted_content: `${SEALED_TURN_PREFIX}${encodeSealedTurn(sealedTurn)!}`,
}
const toolOutput = { type: 'function_call_output', call_id: 'call_1', output: 'Sunny' }

/** The turn the relay sealed, as the translation rebuilds it. */
const rebuilt: AssistantTurn = {
  role: 'assistant',
  text: sealedTurn.text,
  thinking: sealedTurn.thinking,
  toolCalls: sealedTurn.toolCalls,
  items: sealedTurn.items,
  usage: { inputTokens: 0, outputTokens: 0 },
  stopReason: 'tool-calls',
}
/** The same turn from its message and call alone. */
const plain: AssistantTurn = {
  role: 'assistant',
  text: 'Checking.',
  toolCalls: [{ id: 'call_1', name: 'weather', input: { days: [1, 2], city: 'Paris' } }],
  usage: { inputTokens: 0, outputTokens: 0 },
  stopReason: 'tool-calls',
}

describe('translateResponsesRequest: fields', () => {
  it('lists exactly the fields of the SDK request type', () => {
    // A field added to the SDK's type breaks this table's compilation until it is listed here.
    const sdkFields: FieldTable<ResponseCreateParamsBase, true> = {
      background: true,
      context_management: true,
      conversation: true,
      include: true,
      input: true,
      instructions: true,
      max_output_tokens: true,
      metadata: true,
      model: true,
      moderation: true,
      parallel_tool_calls: true,
      previous_response_id: true,
      prompt: true,
      prompt_cache_key: true,
      prompt_cache_options: true,
      prompt_cache_retention: true,
      reasoning: true,
      safety_identifier: true,
      service_tier: true,
      store: true,
      stream: true,
      stream_options: true,
      temperature: true,
      text: true,
      tool_choice: true,
      tools: true,
      top_logprobs: true,
      top_p: true,
      truncation: true,
      user: true,
    }
    expect(Object.keys(RESPONSES_FIELDS).toSorted()).toEqual(Object.keys(sdkFields).toSorted())
  })

  it('translates every mapped field into a /v1/chat body', () => {
    const result = translated({
      instructions: 'Be brief.',
      input: [question],
      tools: [
        {
          type: 'function',
          name: 'weather',
          description: 'Weather by city',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
          strict: true,
        },
        { type: 'function', name: 'now', parameters: null, strict: null },
      ],
      tool_choice: { type: 'function', name: 'weather' },
      max_output_tokens: 100,
      temperature: 0.3,
      text: {
        format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
        verbosity: 'low',
      },
      reasoning: { effort: 'xhigh', summary: 'auto' },
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
    })
    expect(result.request).toEqual({
      model,
      conversation: { system: 'Be brief.', turns: [question] },
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
      responseFormat: { type: 'json', name: 'answer', schema: { type: 'object' } },
      thinking: 'max',
    })
    expect(result.stream).toBe(true)
    expect(result.notes).toEqual([])
    expect(result.echo).toMatchObject({
      instructions: 'Be brief.',
      max_output_tokens: 100,
      temperature: 0.3,
      tool_choice: { type: 'function', name: 'weather' },
      reasoning: { effort: 'xhigh', summary: 'auto' },
      text: { format: { type: 'json_schema', name: 'answer' } },
    })
  })

  it('takes input as a string, and leaves stream off by default', () => {
    const result = translated({ input: 'Hi' })
    expect(result.request).toEqual({
      model,
      conversation: { turns: [{ role: 'user', content: 'Hi' }] },
    })
    expect(result.stream).toBe(false)
    expect(result.echo).toEqual({
      instructions: null,
      max_output_tokens: null,
      temperature: null,
      tool_choice: 'auto',
      tools: [],
      reasoning: { effort: null, summary: null },
      text: { format: { type: 'text' } },
      metadata: {},
    })
  })

  it.each([
    ['none', 'off'],
    ['minimal', 'low'],
    ['low', 'low'],
    ['medium', 'medium'],
    ['high', 'high'],
    ['xhigh', 'max'],
    ['max', 'max'],
  ])('maps reasoning.effort %s to thinking %s', (effort, thinking) => {
    expect(translated({ input: 'Hi', reasoning: { effort } }).request.thinking).toBe(thinking)
  })

  it('leaves the model its default thinking when reasoning has no effort', () => {
    for (const reasoning of [{}, { effort: null, summary: 'detailed' }, null]) {
      expect(translated({ input: 'Hi', reasoning }).request).not.toHaveProperty('thinking')
    }
  })

  it('maps text.format json_object, and leaves text as no format', () => {
    expect(
      translated({ input: 'Hi', text: { format: { type: 'json_object' } } }).request,
    ).toMatchObject({ responseFormat: { type: 'json' } })
    const text = translated({ input: 'Hi', text: { format: { type: 'text' } } }).request
    expect(text).not.toHaveProperty('responseFormat')
  })

  it('maps tool_choice strings', () => {
    for (const choice of ['auto', 'none', 'required'])
      expect(translated({ input: 'Hi', tool_choice: choice }).request.toolChoice).toBe(choice)
  })

  it('accepts and ignores the fields real clients send that the relay does not map', () => {
    const result = translated({
      input: 'Hi',
      metadata: { app: 'x' },
      parallel_tool_calls: false,
      prompt_cache_key: 'k',
      prompt_cache_retention: '24h',
      prompt_cache_options: { mode: 'implicit' },
      safety_identifier: 'h',
      service_tier: 'auto',
      stream_options: { include_obfuscation: false },
      top_logprobs: 2,
      top_p: 0.9,
      truncation: 'auto',
      user: 'u',
      moderation: null,
      context_management: null,
      background: false,
      previous_response_id: null,
      conversation: null,
      prompt: null,
    })
    expect(result.request).toEqual({
      model,
      conversation: { turns: [{ role: 'user', content: 'Hi' }] },
    })
    expect(result.echo.metadata).toEqual({ app: 'x' })
  })

  it('answers store: true as false, with a note', () => {
    expect(translated({ input: 'Hi', store: true }).notes).toEqual([
      'store answered false: the relay keeps no responses',
    ])
  })
})

describe('translateResponsesRequest: input', () => {
  it('makes user turns of user messages, with text and image parts', () => {
    const result = translated({
      input: [
        { role: 'user', content: 'Look:' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'this' },
            { type: 'input_image', image_url: 'https://img.test/a.png', detail: 'auto' },
            { type: 'input_image', image_url: 'data:image/PNG;base64,iVBORw0K', detail: 'low' },
          ],
        },
      ],
    })
    expect(result.request.conversation.turns).toEqual([
      { role: 'user', content: 'Look:' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'this' },
          { type: 'image', url: 'https://img.test/a.png' },
          { type: 'image', mediaType: 'image/png', data: 'iVBORw0K' },
        ],
      },
    ])
  })

  it('joins instructions, system and developer messages into one system prompt', () => {
    const result = translated({
      instructions: 'Be brief.',
      input: [
        { role: 'system', content: 'Answer in French.' },
        question,
        { role: 'developer', content: [{ type: 'input_text', text: 'No emoji.' }] },
      ],
    })
    expect(result.request.conversation).toEqual({
      system: 'Be brief.\n\nAnswer in French.\n\nNo emoji.',
      turns: [question],
    })
  })

  it('makes one assistant turn of an answer’s items, and one tool turn of its outputs', () => {
    const result = translated({
      input: [
        question,
        summary,
        message,
        call,
        { ...call, id: 'fc_2', call_id: 'call_2', name: 'time', arguments: '' },
        { ...toolOutput, call_id: 'call_2', output: [{ type: 'input_text', text: '14:05' }] },
        toolOutput,
        { role: 'assistant', content: 'Sunny, and 14:05.' },
      ],
    })
    expect(result.request.conversation.turns).toEqual([
      question,
      {
        ...plain,
        toolCalls: [...plain.toolCalls!, { id: 'call_2', name: 'time', input: {} }],
      },
      {
        role: 'tool',
        results: [
          { callId: 'call_2', name: 'time', output: '14:05' },
          { callId: 'call_1', name: 'weather', output: 'Sunny' },
        ],
      },
      {
        role: 'assistant',
        text: 'Sunny, and 14:05.',
        usage: { inputTokens: 0, outputTokens: 0 },
        stopReason: 'stop',
      },
    ])
    expect(result.notes).toEqual([])
    expect(result.sources).toEqual([
      { at: 0 },
      { at: 1, text: 2, parts: [3, 4] },
      { at: 5, parts: [5, 6] },
      { at: 7, text: 7 },
    ])
  })

  it('reads an assistant message’s text parts and skips its refusal parts', () => {
    const turns = translated({
      input: [
        question,
        {
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'No', annotations: [] },
            { type: 'refusal', refusal: 'I will not.' },
            { type: 'input_text', text: '.' },
          ],
        },
      ],
    }).request.conversation.turns
    expect(turns[1]).toMatchObject({ role: 'assistant', text: 'No.' })
  })
})

describe('translateResponsesRequest: the sealed reasoning item', () => {
  it.each([
    ['last, where the relay put it', [summary, message, call, sealed]],
    ['first', [sealed, summary, message, call]],
    ['between the message and the call', [summary, message, sealed, call]],
  ])('rebuilds the sealed turn from the record sent back %s', (_, answer) => {
    const result = translated({ input: [question, ...answer, toolOutput] })
    expect(result.notes).toEqual([])
    expect(result.request.conversation.turns[1]).toEqual(rebuilt)
    expect(result.request.conversation.turns[1]).not.toHaveProperty('warnings')
  })

  it('rebuilds the thinking from the answer’s reasoning summaries, in order', () => {
    const first = { ...summary, summary: [{ type: 'summary_text', text: 'The user ' }] }
    const second = {
      ...summary,
      id: 'rs_3',
      summary: [
        { type: 'summary_text', text: 'wants ' },
        { type: 'summary_text', text: 'the weather.' },
      ],
    }
    const result = translated({ input: [question, first, message, second, call, sealed] })
    expect(result.request.conversation.turns[1]).toEqual(rebuilt)
    const silent = translated({ input: [question, message, call, sealed] })
    expect(silent.request.conversation.turns[1]).not.toHaveProperty('thinking')
  })

  it('keeps the items of a changed answer with what was sent, for the seal check to judge', () => {
    const edited = { ...message, content: [{ type: 'output_text', text: 'Checked.' }] }
    const result = translated({ input: [question, summary, edited, call, sealed, toolOutput] })
    expect(result.request.conversation.turns[1]).toEqual({ ...rebuilt, text: 'Checked.' })
    expect(result.notes).toEqual([])
  })

  it('rebuilds the sealed turn from an earlier version’s record, which says its thinking', () => {
    const result = translated({ input: [question, message, call, sealedWhole, toolOutput] })
    expect(result.request.conversation.turns[1]).toEqual(rebuilt)
    expect(result.notes).toEqual([])
  })

  it('drops an earlier version’s record, with a note, when the answer’s text was changed', () => {
    const edited = { ...message, content: [{ type: 'output_text', text: 'Checked.' }] }
    const result = translated({ input: [question, summary, edited, call, sealedWhole, toolOutput] })
    expect(result.request.conversation.turns[1]).toEqual({ ...plain, text: 'Checked.' })
    expect(result.notes).toEqual([
      "input[4].encrypted_content dropped: its text is not the answer's output_text",
    ])
  })

  it('drops an earlier version’s record, with a note, when the answer’s calls were changed', () => {
    const edited = { ...call, arguments: '{"city":"Lyon","days":[1,2]}' }
    const result = translated({ input: [question, message, edited, sealedWhole, toolOutput] })
    expect(result.request.conversation.turns[1]).toMatchObject({
      toolCalls: [{ id: 'call_1', name: 'weather', input: { city: 'Lyon', days: [1, 2] } }],
    })
    expect(result.request.conversation.turns[1]).not.toHaveProperty('items')
    expect(result.notes).toEqual([
      "input[3].encrypted_content dropped: its tool calls are not the answer's function_call items",
    ])
  })

  it('notes state it did not write, or cannot read, and sends the answer without it', () => {
    const theirs = { ...summary, encrypted_content: 'gAAAAABopenai-own-state' }
    const cut = (item: typeof sealed) => ({
      ...item,
      encrypted_content: `${item.encrypted_content!.slice(0, 40)}!`,
    })
    // Items that decode, without the seal only a relay writes.
    const { seal: _seal, ...unsealed } = sealedTurn.items!
    const noSeal = {
      ...sealed,
      encrypted_content: `thinkwire-v2.${Buffer.from(JSON.stringify(unsealed)).toString('base64url')}`,
    }
    const result = translated({
      input: [question, theirs, message, call, cut(sealed), cut(sealedWhole), noSeal, toolOutput],
    })
    expect(result.request.conversation.turns[1]).toEqual(plain)
    expect(result.notes).toEqual([
      'input[1].encrypted_content dropped: it is not a record of this relay',
      'input[4].encrypted_content dropped: its record does not decode',
      'input[5].encrypted_content dropped: its record does not decode',
      'input[6].encrypted_content dropped: its record does not decode',
    ])
  })

  it('keeps the first record of an answer and notes another', () => {
    const result = translated({
      input: [question, summary, message, call, sealed, sealedWhole, toolOutput],
    })
    expect(result.request.conversation.turns[1]).toEqual(rebuilt)
    expect(result.notes).toEqual([
      "input[5].encrypted_content dropped: input[4] holds this answer's record",
    ])
  })

  it('leaves out reasoning items with nothing after them, with a note', () => {
    const result = translated({ input: [question, summary, { role: 'user', content: 'Go on.' }] })
    expect(result.request.conversation.turns).toEqual([
      question,
      { role: 'user', content: 'Go on.' },
    ])
    expect(result.notes).toEqual([
      'input[1] left out: reasoning items with no message or function_call',
    ])
  })

  it('rebuilds a sealed answer that said nothing from its record alone', () => {
    const silent: AssistantTurn = { ...sealedTurn, text: '', toolCalls: undefined }
    const record = sealedReasoningItem(silent, 'rs_9')!
    const result = translated({
      input: [question, summary, record, { role: 'user', content: 'Go on.' }],
    })
    expect(result.request.conversation.turns[1]).toMatchObject({ text: '', items: silent.items })
    expect(result.notes).toEqual([])
  })
})

describe('translateResponsesRequest: refusals', () => {
  it('refuses a field that is not part of the Responses API, naming it', () => {
    for (const key of ['api_key', 'base_url', 'providerOptions', 'messages', 'thinking']) {
      const refusal = refused({ model, input: 'Hi', [key]: 'x' })
      expect(refusal.field).toBe(key)
      expect(refusal.code).toBe('unknown_parameter')
      expect(refusal.message).toContain('is not a field of the Responses API')
    }
    // A key that JSON.parse made an own member is refused like any other.
    expect(refused(JSON.parse('{"model":"m","input":"x","__proto__":{"x":1}}')).field).toBe(
      '__proto__',
    )
  })

  it.each([
    ['previous_response_id', 'resp_123'],
    ['conversation', 'conv_123'],
    ['prompt', { id: 'pmpt_123' }],
    ['background', true],
  ])('refuses %s: the relay keeps no state', (key, value) => {
    const refusal = refused({ model, input: 'Hi', [key]: value })
    expect(refusal).toMatchObject({ field: key, code: 'unsupported_parameter' })
    expect(refusal.message).toContain('the relay is stateless (store is always false)')
  })

  it('refuses a body that is not an object, with no param', () => {
    expect(refused([])).toMatchObject({
      field: undefined,
      message: 'body must be a JSON object, got an array',
    })
  })

  it.each([
    [{ input: 'Hi' }, 'model', 'model must be a string, got undefined'],
    [{ model }, 'input', 'input must be a string or an array of items, got undefined'],
    [{ model, input: 'Hi', stream: 'yes' }, 'stream', "stream must be a boolean, got 'yes'"],
    [{ model, input: 'Hi', store: 1 }, 'store', 'store must be a boolean, got 1'],
    [{ model, input: 'Hi', include: [3] }, 'include[0]', 'include[0] must be a string, got 3'],
    [
      { model, input: 'Hi', instructions: 5 },
      'instructions',
      'instructions must be a string, got 5',
    ],
    [
      { model, input: [{ type: 'item_reference', id: 'msg_1' }] },
      'input[0].type',
      "input[0].type must be 'message', 'function_call', 'function_call_output' or 'reasoning', got 'item_reference'",
    ],
    [
      { model, input: [{ type: 'web_search_call', id: 'ws_1' }] },
      'input[0].type',
      "input[0].type must be 'message', 'function_call', 'function_call_output' or 'reasoning', got 'web_search_call'",
    ],
    [
      { model, input: [{ role: 'wizard', content: 'x' }] },
      'input[0].role',
      "input[0].role must be 'user', 'assistant', 'system' or 'developer', got 'wizard'",
    ],
    [
      { model, input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] },
      'input[0].content[0].type',
      "input[0].content[0].type must be 'input_text' or 'input_image', got 'input_file'",
    ],
    [
      { model, input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] },
      'input[0].content[0].file_id',
      'input[0].content[0].file_id is not supported: the relay keeps no files; send image_url',
    ],
    [
      { model, input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:x' }] }] },
      'input[0].content[0].image_url',
      'input[0].content[0].image_url must be an http(s) URL or a data:image/...;base64, URL',
    ],
    [
      { model, input: [question, toolOutput] },
      'input[1].call_id',
      "input[1].call_id 'call_1' matches no function_call of an earlier item",
    ],
    [
      { model, input: [question, { ...call, arguments: '{"city":' }] },
      'input[1].arguments',
      'input[1].arguments must be a JSON text',
    ],
    [
      { model, input: 'Hi', tools: [{ type: 'web_search' }] },
      'tools[0].type',
      "tools[0].type must be 'function': the relay runs no hosted tools, got 'web_search'",
    ],
    [
      { model, input: 'Hi', tool_choice: { type: 'file_search' } },
      'tool_choice.type',
      "tool_choice.type must be 'function', got 'file_search'",
    ],
    [
      { model, input: 'Hi', tool_choice: 'any' },
      'tool_choice',
      "tool_choice must be 'auto', 'none' or 'required', got 'any'",
    ],
    [
      { model, input: 'Hi', reasoning: { effort: 'extreme' } },
      'reasoning.effort',
      "reasoning.effort must be 'none', 'minimal', 'low', 'medium', 'high', 'xhigh' or 'max', got 'extreme'",
    ],
    [
      { model, input: 'Hi', text: { format: { type: 'yaml' } } },
      'text.format.type',
      "text.format.type must be 'text', 'json_object' or 'json_schema', got 'yaml'",
    ],
    [
      { model, input: 'Hi', max_output_tokens: '100' },
      'max_output_tokens',
      "max_output_tokens must be a number, got '100'",
    ],
    [
      {
        model,
        input: [question, { ...summary, summary: [{ type: 'reasoning_text', text: 'x' }] }],
      },
      'input[1].summary[0].type',
      "input[1].summary[0].type must be 'summary_text', got 'reasoning_text'",
    ],
  ])('refuses %j, naming %s', (body, field, said) => {
    expect(refused(body)).toEqual({ ok: false, field, message: said })
  })
})

describe('responsesDialect.parse: the relay’s own checks, named as the Responses API names them', () => {
  it.each([
    [{ input: [{ role: 'user', content: '' }] }, 'input[0].content', 'must not be empty'],
    [{ input: '' }, 'input', 'must not be empty'],
    [{ input: [] }, 'input', 'must not be empty'],
    [
      { input: [{ role: 'user', content: [{ type: 'input_text', text: '' }] }] },
      'input[0].content[0].text',
      'must not be empty',
    ],
    [
      {
        input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://x.test/a' }] }],
      },
      'input[0].content[0].image_url',
      'must be an http or https URL',
    ],
    [
      { input: 'Hi', max_output_tokens: 10_001 },
      'max_output_tokens',
      'must be between 1 and 10000',
    ],
    [{ input: 'Hi', temperature: 5 }, 'temperature', 'must be between 0 and 2'],
    [{ input: 'Hi', tool_choice: 'required' }, 'tool_choice', "'required' needs tools"],
    [
      { input: 'Hi', tools: [{ type: 'function', name: 'no spaces', parameters: {} }] },
      'tools[0].name',
      'must match',
    ],
    [
      { input: 'Hi', tools: [{ type: 'function', name: 'f', parameters: { type: 'string' } }] },
      'tools[0].parameters.type',
      "must be 'object'",
    ],
    [
      {
        input: 'Hi',
        tools: [{ type: 'function', name: 'f', parameters: {} }],
        tool_choice: { type: 'function', name: 'g' },
      },
      'tool_choice.name',
      "'g' names no tool in tools",
    ],
    [
      { input: 'Hi', text: { format: { type: 'json_schema', name: 'a b', schema: {} } } },
      'text.format.name',
      'must match',
    ],
    [
      { input: [question, message, call] },
      'input[2]',
      "has no result: a tool turn after it must answer 'call_1'",
    ],
    [
      { input: [question, message, call, { ...call, id: 'fc_2' }, toolOutput] },
      'input[3].call_id',
      "repeats the tool call id 'call_1'",
    ],
    [
      { input: [question, message, call, toolOutput, toolOutput] },
      'input[4].call_id',
      "'call_1' is answered already",
    ],
    [
      { input: [question, { role: 'assistant', content: '' }] },
      'input[1].content',
      'must not be empty',
    ],
  ])('names the field of %j as %s', (body, param, problem) => {
    const result = parsed(body)
    if (result.ok) throw new Error('expected the body to be refused')
    expect(result.field).toBe(param)
    expect(result.message.startsWith(`${param} ${problem}`)).toBe(true)
  })

  it('passes a body the relay checks, with the call it makes', () => {
    const result = parsed({
      input: [question, summary, message, call, sealed, toolOutput],
      stream: true,
    })
    if (!result.ok) throw new Error(result.message)
    expect(result.call.stream).toBe(true)
    expect(result.call.conversation.turns[1]).toEqual(rebuilt)
  })
})
