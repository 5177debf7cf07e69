import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../../helpers/property.ts'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import { ThinkwireError } from '../../../src/core/errors.ts'
import {
  completionResponse,
  createCompletionEncoder,
  decodeReasoningDetails,
  encodeReasoningDetails,
  finishReason,
} from '../../../src/relay/completions/index.ts'

const meta = { id: 'chatcmpl-1', model: 'anthropic/claude-sonnet-4-5', created: 1_700_000_000 }

const turn: AssistantTurn = {
  role: 'assistant',
  text: 'Hi!',
  thinking: 'Say hi.',
  toolCalls: [
    { id: 'c1', name: 'a', input: { x: 1 } },
    { id: 'c2', name: 'b', input: {} },
  ],
  usage: { inputTokens: 10, outputTokens: 7, reasoningTokens: 3, cacheReadTokens: 4 },
  stopReason: 'tool-calls',
  items: { provider: 'p', model: 'm', thinkingMode: 'high', data: [{ k: 'v' }], seal: 's1.x.y' },
}

/** The `data` of each SSE event, parsed, with `[DONE]` kept as text. */
function events(text: string): unknown[] {
  expect(text.endsWith('\n\n') || text === '').toBe(true)
  return text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      expect(block.startsWith('data: ')).toBe(true)
      expect(block.includes('\n')).toBe(false)
      const data = block.slice('data: '.length)
      return data === '[DONE]' ? data : JSON.parse(data)
    })
}

const chunkOf = (delta: unknown, finish: string | null = null) => ({
  id: meta.id,
  object: 'chat.completion.chunk',
  created: meta.created,
  model: meta.model,
  choices: [{ index: 0, delta, finish_reason: finish }],
})

describe('createCompletionEncoder', () => {
  it('writes thinking, text and tool calls as deltas, the role in the first', () => {
    const encode = createCompletionEncoder({ ...meta, includeUsage: false })
    expect(events(encode.delta({ type: 'thinking', text: 'Say' }))).toEqual([
      chunkOf({ role: 'assistant', reasoning_content: 'Say' }),
    ])
    expect(events(encode.delta({ type: 'thinking', text: ' hi.' }))).toEqual([
      chunkOf({ reasoning_content: ' hi.' }),
    ])
    expect(events(encode.delta({ type: 'text', text: 'Hi\n"!"' }))).toEqual([
      chunkOf({ content: 'Hi\n"!"' }),
    ])
    expect(events(encode.delta({ type: 'tool-call', call: turn.toolCalls![0]! }))).toEqual([
      chunkOf({
        tool_calls: [
          { index: 0, id: 'c1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
        ],
      }),
    ])
    expect(events(encode.delta({ type: 'tool-call', call: turn.toolCalls![1]! }))).toEqual([
      chunkOf({
        tool_calls: [
          { index: 1, id: 'c2', type: 'function', function: { name: 'b', arguments: '{}' } },
        ],
      }),
    ])
  })

  it('writes nothing for an empty delta', () => {
    const encode = createCompletionEncoder({ ...meta, includeUsage: false })
    expect(encode.delta({ type: 'text', text: '' })).toBe('')
    expect(encode.delta({ type: 'thinking', text: '' })).toBe('')
    // The role still goes with the first chunk actually written.
    expect(events(encode.delta({ type: 'text', text: 'a' }))).toEqual([
      chunkOf({ role: 'assistant', content: 'a' }),
    ])
  })

  it('ends with reasoning_details and finish_reason in one chunk, then usage, then [DONE]', () => {
    const encode = createCompletionEncoder({ ...meta, includeUsage: true })
    encode.delta({ type: 'text', text: 'Hi!' })
    const out = events(encode.done(turn))
    expect(out).toEqual([
      chunkOf({ reasoning_details: encodeReasoningDetails(turn) }, 'tool_calls'),
      {
        id: meta.id,
        object: 'chat.completion.chunk',
        created: meta.created,
        model: meta.model,
        choices: [],
        usage: {
          prompt_tokens: 10,
          completion_tokens: 7,
          total_tokens: 17,
          prompt_tokens_details: { cached_tokens: 4 },
          completion_tokens_details: { reasoning_tokens: 3 },
        },
      },
      '[DONE]',
    ])
    expect(decodeReasoningDetails(encodeReasoningDetails(turn))?.items).toEqual(turn.items)
  })

  it('ends an unsealed turn with an empty delta and no usage unless asked', () => {
    const encode = createCompletionEncoder({ ...meta, includeUsage: false })
    encode.delta({ type: 'text', text: 'Hi!' })
    const unsealed = {
      ...turn,
      items: { ...turn.items!, seal: undefined },
      stopReason: 'stop' as const,
    }
    expect(events(encode.done(unsealed))).toEqual([chunkOf({}, 'stop'), '[DONE]'])
  })

  it('gives the role to the final chunk when nothing came before it', () => {
    const encode = createCompletionEncoder({ ...meta, includeUsage: false })
    const out = events(encode.done({ ...turn, items: undefined, stopReason: 'length' }))
    expect(out).toEqual([chunkOf({ role: 'assistant' }, 'length'), '[DONE]'])
  })

  it('writes a failure as an error chunk with no [DONE]', () => {
    const encode = createCompletionEncoder({ ...meta, includeUsage: true })
    encode.delta({ type: 'text', text: 'Hi' })
    expect(events(encode.error({ kind: 'overloaded', message: 'upstream is busy' }))).toEqual([
      { error: { message: 'upstream is busy', type: 'server_error', code: null, param: null } },
    ])
    expect(events(encode.error({ kind: 'timeout', message: 'no answer' }))).toEqual([
      { error: { message: 'no answer', type: 'timeout_error', code: null, param: null } },
    ])
    expect(events(encode.error({ kind: 'rate-limit', message: 'slow down' }))).toEqual([
      {
        error: {
          message: 'slow down',
          type: 'rate_limit_error',
          code: 'rate_limit_exceeded',
          param: null,
        },
      },
    ])
  })

  it('names a failure by its kind, not by the status the provider answered with', () => {
    const encode = createCompletionEncoder({ ...meta, includeUsage: false })
    const upstream = new ThinkwireError({ kind: 'timeout', message: 'no answer', status: 500 })
    expect(events(encode.error(upstream))).toEqual([
      { error: { message: 'no answer', type: 'timeout_error', code: null, param: null } },
    ])
  })
})

describe('finishReason', () => {
  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool-calls', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['aborted', 'stop'],
    ['other', 'stop'],
  ] as const)('%s → %s', (reason, expected) => {
    expect(finishReason(reason)).toBe(expected)
  })
})

describe('completionResponse', () => {
  it('is one chat.completion with the whole message', () => {
    expect(completionResponse(turn, meta)).toEqual({
      id: meta.id,
      object: 'chat.completion',
      created: meta.created,
      model: meta.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Hi!',
            refusal: null,
            reasoning_content: 'Say hi.',
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
              { id: 'c2', type: 'function', function: { name: 'b', arguments: '{}' } },
            ],
            reasoning_details: encodeReasoningDetails(turn),
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 7,
        total_tokens: 17,
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 3 },
      },
    })
  })

  it('has null content for an answer that is only tool calls, and no fields it has no value for', () => {
    const callsOnly = { ...turn, text: '', thinking: undefined, items: undefined }
    const { message } = completionResponse(callsOnly, meta).choices[0]!
    expect(message['content']).toBeNull()
    expect(message).not.toHaveProperty('reasoning_content')
    expect(message).not.toHaveProperty('reasoning_details')
    const empty = { ...callsOnly, toolCalls: undefined, stopReason: 'stop' as const }
    const plain = completionResponse(empty, meta).choices[0]!
    expect(plain.message).toEqual({ role: 'assistant', content: '', refusal: null })
    expect(
      completionResponse({ ...empty, usage: { inputTokens: 1, outputTokens: 2 } }, meta).usage,
    ).toEqual({
      prompt_tokens: 1,
      completion_tokens: 2,
      total_tokens: 3,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    })
  })
})

describe('createCompletionEncoder: the templated hot path', () => {
  it(
    'writes every later text and thinking delta exactly as JSON.stringify of the whole chunk',
    () => {
      fc.assert(
        fc.property(
          fc.string({ unit: 'grapheme', minLength: 1 }),
          fc.constantFrom('text' as const, 'thinking' as const),
          fc.string(),
          (text, type, model) => {
            const encode = createCompletionEncoder({ ...meta, model, includeUsage: false })
            encode.delta({ type: 'text', text: 'first' })
            const delta = type === 'text' ? { content: text } : { reasoning_content: text }
            const chunk = {
              id: meta.id,
              object: 'chat.completion.chunk',
              created: meta.created,
              model,
              choices: [{ index: 0, delta, finish_reason: null }],
            }
            expect(encode.delta({ type, text })).toBe(`data: ${JSON.stringify(chunk)}\n\n`)
          },
        ),
        { numRuns: 300, seed: 20_261_202, plugins: timeBound() },
      )
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )
})
