import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Adapter } from '../../src/core/adapter.ts'
import { completeJson } from '../../src/core/complete-json.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { gemini } from '../../src/providers/gemini/index.ts'
import { deepseek } from '../../src/providers/openai-compatible/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { replayFetch, type ReplayFetch } from '../helpers/replay-fetch.ts'

// completeJson over each provider's real wire format: the answer arrives in pieces, fenced, with
// prose before it that holds a bracket of its own, as models write it.
const pieces = ['Sure, the data [as asked]:\n```json\n{"city": "Os', 'lo", "temp', 'C": 4,}\n```']
const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`

const streams: { name: string; body: string; make(fetch: ReplayFetch['fetch']): Adapter }[] = [
  {
    name: 'anthropic',
    make: (fetch) =>
      anthropic({ apiKey: 'sk-ant-test-0000000000', model: 'claude-sonnet-5', fetch }),
    body: [
      event('message_start', {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-5',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 9, output_tokens: 1 },
        },
      }),
      event('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '' },
      }),
      ...pieces.map((text) =>
        event('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text },
        }),
      ),
      event('content_block_stop', { type: 'content_block_stop', index: 0 }),
      event('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 20 },
      }),
      event('message_stop', { type: 'message_stop' }),
    ].join(''),
  },
  {
    name: 'openai',
    make: (fetch) => openai({ apiKey: 'sk-test-0000000000', model: 'gpt-5.4', fetch }),
    body: (() => {
      const item = {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: pieces.join(''), annotations: [] }],
      }
      return [
        ...pieces.map((delta, i) =>
          event('response.output_text.delta', {
            type: 'response.output_text.delta',
            item_id: 'msg_1',
            output_index: 0,
            content_index: 0,
            delta,
            sequence_number: i,
          }),
        ),
        event('response.output_item.done', {
          type: 'response.output_item.done',
          output_index: 0,
          item,
          sequence_number: 9,
        }),
        event('response.completed', {
          type: 'response.completed',
          sequence_number: 10,
          response: {
            id: 'resp_1',
            status: 'completed',
            output: [item],
            usage: { input_tokens: 9, output_tokens: 20, total_tokens: 29 },
          },
        }),
      ].join('')
    })(),
  },
  {
    name: 'gemini',
    make: (fetch) =>
      gemini({ apiKey: 'AIza-test-000000000000000000', model: 'gemini-3-flash-preview', fetch }),
    body: pieces
      .map((text, i) =>
        data({
          candidates: [
            {
              content: { role: 'model', parts: [{ text }] },
              ...(i === pieces.length - 1 ? { finishReason: 'STOP' } : {}),
            },
          ],
          usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 20 },
        }),
      )
      .join(''),
  },
  {
    name: 'openai-compatible (deepseek)',
    make: (fetch) => deepseek({ apiKey: 'sk-test-0000000000', model: 'deepseek-chat', fetch }),
    body: [
      ...pieces.map((content) =>
        data({ id: 'c1', choices: [{ index: 0, delta: { content }, finish_reason: null }] }),
      ),
      data({
        id: 'c1',
        choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
        usage: { prompt_tokens: 9, completion_tokens: 20 },
      }),
      'data: [DONE]\n\n',
    ].join(''),
  },
]

describe('completeJson on each provider’s stream', () => {
  for (const stream of streams) {
    it(`${stream.name}: repairs the fenced, trailing-comma answer and validates it`, async () => {
      const replay = replayFetch([{ body: stream.body, splitAt: 'bytes' }])
      const { value, turn } = await completeJson(
        stream.make(replay.fetch),
        { turns: [{ role: 'user', content: 'Weather in Oslo, as JSON?' }] },
        { schema: z.object({ city: z.string(), tempC: z.number() }) },
      )
      expect(value).toEqual({ city: 'Oslo', tempC: 4 })
      expect(turn.text).toBe(pieces.join(''))
      // The request asked for JSON, in whatever way this provider takes it.
      expect(JSON.stringify(replay.requests[0]?.body)).toMatch(/json/i)
    })
  }
})
