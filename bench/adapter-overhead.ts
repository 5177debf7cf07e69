/**
 * What the Anthropic and OpenAI adapters cost per event over their SDK's own stream helper.
 * Each side replays the same generated recording (20,000 thinking deltas and 20,000 text deltas)
 * through the real SDK with an injected fetch; runs alternate and the median is reported.
 * Numbers only: nothing here asserts a time. Run: `npx tsx bench/adapter-overhead.ts`.
 */
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import type { Adapter } from '../src/core/adapter.ts'
import type { Conversation } from '../src/core/conversation.ts'
import { anthropic } from '../src/providers/anthropic/index.ts'
import { openai } from '../src/providers/openai/index.ts'
import { fmt, measure, printTable, type Row, type Variant } from './harness.ts'

const DELTAS = 20_000
const CHUNK = 16 * 1024
const KEY = 'bench-key'
const ask: Conversation = { turns: [{ role: 'user', content: 'Think, then answer at length.' }] }

function frame(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`
}

/** An Anthropic stream: a thinking block of DELTAS deltas, then a text block of DELTAS deltas. */
function anthropicRecording(): Uint8Array {
  const parts: string[] = []
  const usage = {
    input_tokens: 12,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 1,
  }
  parts.push(
    frame('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_bench',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-5',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    }),
    frame('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    }),
  )
  for (let i = 0; i < DELTAS; i++)
    parts.push(
      frame('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: `step ${i} ` },
      }),
    )
  parts.push(
    frame('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'signature_delta', signature: 'EqQBbench' },
    }),
    frame('content_block_stop', { type: 'content_block_stop', index: 0 }),
    frame('content_block_start', {
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'text', text: '' },
    }),
  )
  for (let i = 0; i < DELTAS; i++)
    parts.push(
      frame('content_block_delta', {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'text_delta', text: `word${i} ` },
      }),
    )
  parts.push(
    frame('content_block_stop', { type: 'content_block_stop', index: 1 }),
    frame('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 2 * DELTAS },
    }),
    frame('message_stop', { type: 'message_stop' }),
  )
  return new TextEncoder().encode(parts.join(''))
}

/** A Responses stream: a reasoning summary of DELTAS deltas, then a message of DELTAS deltas. */
function openaiRecording(): Uint8Array {
  const parts: string[] = []
  let seq = 0
  const event = (data: Record<string, unknown>) => {
    const type = String(data['type'])
    parts.push(frame(type, { ...data, sequence_number: seq++ }))
  }
  const response = (status: string, output: unknown[]) => ({
    id: 'resp_bench',
    object: 'response',
    created_at: 1,
    status,
    model: 'gpt-5.4',
    output,
    usage:
      status === 'completed'
        ? {
            input_tokens: 12,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 2 * DELTAS,
            output_tokens_details: { reasoning_tokens: DELTAS },
            total_tokens: 12 + 2 * DELTAS,
          }
        : null,
  })
  let summary = ''
  let text = ''
  event({ type: 'response.created', response: response('in_progress', []) })
  event({
    type: 'response.output_item.added',
    output_index: 0,
    item: { type: 'reasoning', id: 'rs_bench', summary: [] },
  })
  event({
    type: 'response.reasoning_summary_part.added',
    item_id: 'rs_bench',
    output_index: 0,
    summary_index: 0,
    part: { type: 'summary_text', text: '' },
  })
  for (let i = 0; i < DELTAS; i++) {
    const delta = `step ${i} `
    summary += delta
    event({
      type: 'response.reasoning_summary_text.delta',
      item_id: 'rs_bench',
      output_index: 0,
      summary_index: 0,
      delta,
    })
  }
  const reasoning = {
    type: 'reasoning',
    id: 'rs_bench',
    summary: [{ type: 'summary_text', text: summary }],
    encrypted_content: 'gAAAAbench',
  }
  event({ type: 'response.output_item.done', output_index: 0, item: reasoning })
  event({
    type: 'response.output_item.added',
    output_index: 1,
    item: {
      type: 'message',
      id: 'msg_bench',
      role: 'assistant',
      status: 'in_progress',
      content: [],
    },
  })
  event({
    type: 'response.content_part.added',
    item_id: 'msg_bench',
    output_index: 1,
    content_index: 0,
    part: { type: 'output_text', text: '', annotations: [] },
  })
  for (let i = 0; i < DELTAS; i++) {
    const delta = `word${i} `
    text += delta
    event({
      type: 'response.output_text.delta',
      item_id: 'msg_bench',
      output_index: 1,
      content_index: 0,
      delta,
      logprobs: [],
    })
  }
  const message = {
    type: 'message',
    id: 'msg_bench',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  }
  event({ type: 'response.output_item.done', output_index: 1, item: message })
  event({ type: 'response.completed', response: response('completed', [reasoning, message]) })
  return new TextEncoder().encode(parts.join(''))
}

/** A fetch that answers every request with `bytes`, in network-sized chunks. */
function recordedFetch(bytes: Uint8Array): typeof globalThis.fetch {
  return async () => {
    let offset = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) return controller.close()
        controller.enqueue(bytes.subarray(offset, offset + CHUNK))
        offset += CHUNK
      },
    })
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
  }
}

async function drain(adapter: Adapter): Promise<number> {
  let n = 0
  for await (const event of adapter.stream(ask)) if (event.type !== 'done') n++
  return n
}

/** The adapter against its SDK's stream helper (and any other baselines), run alternately. */
async function compare(
  section: string,
  sdk: () => Promise<number>,
  adapter: () => Promise<number>,
  others: Variant[] = [],
): Promise<Row[]> {
  const measured = await measure(
    [{ name: 'SDK stream helper', run: sdk }, { name: 'adapter', run: adapter }, ...others],
    9,
    2,
  )
  const helper = measured[0]!
  return measured.map((m) => ({
    section,
    name: m.name,
    value: `${fmt(m.usPerEvent, 3)} µs/event`,
    note:
      m === helper
        ? ''
        : `${fmt(m.usPerEvent / helper.usPerEvent, 3)}x the SDK helper${m.name === 'adapter' ? ' (target ≤ 1.25x)' : ''}`,
  }))
}

/** Both comparisons, as table rows. */
export async function benchAdapterOverhead(): Promise<Row[]> {
  const anthropicFetch = recordedFetch(anthropicRecording())
  const anthropicClient = new Anthropic({ apiKey: KEY, fetch: anthropicFetch, maxRetries: 0 })
  const anthropicAdapter = anthropic({
    apiKey: KEY,
    model: 'claude-sonnet-5',
    fetch: anthropicFetch,
  })
  const rows = await compare(
    'anthropic (40k deltas)',
    async () => {
      const stream = anthropicClient.messages.stream({
        model: 'claude-sonnet-5',
        max_tokens: 32_000,
        messages: [{ role: 'user', content: 'Think, then answer at length.' }],
      })
      let n = 0
      for await (const event of stream)
        if (event.type === 'content_block_delta' && event.delta.type !== 'signature_delta') n++
      await stream.finalMessage()
      return n
    },
    () => drain(anthropicAdapter),
  )

  const openaiFetch = recordedFetch(openaiRecording())
  const openaiClient = new OpenAI({ apiKey: KEY, fetch: openaiFetch, maxRetries: 0 })
  const openaiAdapter = openai({ apiKey: KEY, model: 'gpt-5.4', fetch: openaiFetch })
  rows.push(
    ...(await compare(
      'openai responses (40k deltas)',
      async () => {
        const stream = openaiClient.responses.stream({
          model: 'gpt-5.4',
          input: 'Think, then answer at length.',
          store: false,
        })
        let n = 0
        for await (const event of stream)
          if (
            event.type === 'response.output_text.delta' ||
            event.type === 'response.reasoning_summary_text.delta'
          )
            n++
        await stream.finalResponse()
        return n
      },
      () => drain(openaiAdapter),
      [
        {
          // What the adapter itself reads: the raw event stream, without the helper's accumulator.
          name: 'SDK raw stream (responses.create)',
          run: async () => {
            const stream = await openaiClient.responses.create({
              model: 'gpt-5.4',
              input: 'Think, then answer at length.',
              store: false,
              stream: true,
            })
            let n = 0
            for await (const event of stream)
              if (
                event.type === 'response.output_text.delta' ||
                event.type === 'response.reasoning_summary_text.delta'
              )
                n++
            return n
          },
        },
      ],
    )),
  )
  return rows
}

if (import.meta.url === new URL(process.argv[1] ?? '', 'file://').href) {
  printTable(await benchAdapterOverhead())
}
