import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * Generated provider streams in each provider's real wire format (SSE as the API sends it), and a
 * fetch that replays them. Written here for the benchmarks: a long thinking phase, then a long
 * answer, with every delta its own event as the providers send them.
 */

/**
 * A generated stream: its bytes, where each SSE event ends in them, and how many visible deltas
 * (thinking + text) it holds.
 */
export type Recording = { bytes: Uint8Array; ends: readonly number[]; deltas: number }

const utf8 = new TextEncoder()

/** The recording of `events`, each one whole SSE event as the wire carries it. */
function record(events: readonly string[], deltas: number): Recording {
  const encoded = events.map((event) => utf8.encode(event))
  const bytes = new Uint8Array(encoded.reduce((sum, event) => sum + event.byteLength, 0))
  const ends: number[] = []
  let offset = 0
  for (const event of encoded) {
    bytes.set(event, offset)
    offset += event.byteLength
    ends.push(offset)
  }
  return { bytes, ends, deltas }
}

function frame(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`
}

/** The thinking delta number `i`, and the text delta number `i`: a few tokens each. */
export const thinkingDelta = (i: number): string => `step ${i} `
export const textDelta = (i: number): string => `word${i} `

/** An Anthropic Messages stream: a thinking block of `thinking` deltas, then a text block. */
export function anthropicRecording(thinking: number, text: number): Recording {
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
  )
  let index = 0
  if (thinking > 0) {
    parts.push(
      frame('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      }),
    )
    for (let i = 0; i < thinking; i++)
      parts.push(
        frame('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'thinking_delta', thinking: thinkingDelta(i) },
        }),
      )
    parts.push(
      frame('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: 'EqQBbench' },
      }),
      frame('content_block_stop', { type: 'content_block_stop', index }),
    )
    index++
  }
  parts.push(
    frame('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'text', text: '' },
    }),
  )
  for (let i = 0; i < text; i++)
    parts.push(
      frame('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: textDelta(i) },
      }),
    )
  parts.push(
    frame('content_block_stop', { type: 'content_block_stop', index }),
    frame('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: thinking + text },
    }),
    frame('message_stop', { type: 'message_stop' }),
  )
  return record(parts, thinking + text)
}

/** A Responses stream: a reasoning summary of `thinking` deltas, then a message of `text` deltas. */
export function openaiRecording(thinking: number, text: number): Recording {
  const parts: string[] = []
  let seq = 0
  const event = (data: Record<string, unknown>) => {
    parts.push(frame(String(data['type']), { ...data, sequence_number: seq++ }))
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
            output_tokens: thinking + text,
            output_tokens_details: { reasoning_tokens: thinking },
            total_tokens: 12 + thinking + text,
          }
        : null,
  })
  let summary = ''
  let answer = ''
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
  for (let i = 0; i < thinking; i++) {
    const delta = thinkingDelta(i)
    summary += delta
    event({
      type: 'response.reasoning_summary_text.delta',
      item_id: 'rs_bench',
      output_index: 0,
      summary_index: 0,
      delta,
    })
  }
  event({
    type: 'response.reasoning_summary_text.done',
    item_id: 'rs_bench',
    output_index: 0,
    summary_index: 0,
    text: summary,
  })
  event({
    type: 'response.reasoning_summary_part.done',
    item_id: 'rs_bench',
    output_index: 0,
    summary_index: 0,
    part: { type: 'summary_text', text: summary },
  })
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
  for (let i = 0; i < text; i++) {
    const delta = textDelta(i)
    answer += delta
    event({
      type: 'response.output_text.delta',
      item_id: 'msg_bench',
      output_index: 1,
      content_index: 0,
      delta,
      logprobs: [],
    })
  }
  const part = { type: 'output_text', text: answer, annotations: [] }
  event({
    type: 'response.output_text.done',
    item_id: 'msg_bench',
    output_index: 1,
    content_index: 0,
    text: answer,
    logprobs: [],
  })
  event({
    type: 'response.content_part.done',
    item_id: 'msg_bench',
    output_index: 1,
    content_index: 0,
    part,
  })
  const message = {
    type: 'message',
    id: 'msg_bench',
    role: 'assistant',
    status: 'completed',
    content: [part],
  }
  event({ type: 'response.output_item.done', output_index: 1, item: message })
  event({ type: 'response.completed', response: response('completed', [reasoning, message]) })
  return record(parts, thinking + text)
}

/**
 * A Gemini `streamGenerateContent?alt=sse` stream: one chunk per delta (thought parts, then text
 * parts), each with the running usage as Gemini sends it, CRLF-delimited, the signature and the
 * finish reason on the last chunk.
 */
export function geminiRecording(thinking: number, text: number): Recording {
  const parts: string[] = []
  const chunk = (part: Record<string, unknown>, output: number, last = false) => {
    const candidate: Record<string, unknown> = {
      content: { parts: [part], role: 'model' },
      index: 0,
    }
    if (last) candidate['finishReason'] = 'STOP'
    const data = {
      candidates: [candidate],
      usageMetadata: {
        promptTokenCount: 12,
        candidatesTokenCount: output,
        totalTokenCount: 12 + output + Math.min(output, thinking),
        thoughtsTokenCount: Math.min(output, thinking),
      },
      modelVersion: 'gemini-3-flash-preview',
      responseId: 'resp_bench',
    }
    parts.push(`data: ${JSON.stringify(data)}\r\n\r\n`)
  }
  for (let i = 0; i < thinking; i++) chunk({ text: thinkingDelta(i), thought: true }, i + 1)
  for (let i = 0; i < text; i++) chunk({ text: textDelta(i) }, thinking + i + 1)
  chunk({ text: '', thoughtSignature: 'U0lHLWJlbmNo' }, thinking + text, true)
  return record(parts, thinking + text)
}

/**
 * A Chat Completions stream as DeepSeek sends it (`deepseek-reasoner`): a role chunk, then one
 * chunk per delta (`reasoning_content` while it thinks, then `content`), the finish reason with the
 * usage on the last chunk, then `data: [DONE]`.
 */
export function chatCompletionsRecording(thinking: number, text: number): Recording {
  const parts: string[] = []
  const chunk = (
    delta: Record<string, unknown>,
    finish: string | null = null,
    usage = null as unknown,
  ) => {
    const data = {
      id: 'chatcmpl-bench',
      object: 'chat.completion.chunk',
      created: 1767225600,
      model: 'deepseek-reasoner',
      system_fingerprint: 'fp_bench',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      usage,
    }
    parts.push(`data: ${JSON.stringify(data)}\n\n`)
  }
  chunk({ role: 'assistant', content: null, reasoning_content: '' })
  for (let i = 0; i < thinking; i++) chunk({ content: null, reasoning_content: thinkingDelta(i) })
  for (let i = 0; i < text; i++) chunk({ content: textDelta(i), reasoning_content: null })
  chunk({ content: '', reasoning_content: null }, 'stop', {
    prompt_tokens: 12,
    completion_tokens: thinking + text,
    total_tokens: 12 + thinking + text,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: thinking },
    prompt_cache_hit_tokens: 0,
    prompt_cache_miss_tokens: 12,
  })
  parts.push('data: [DONE]\n\n')
  return record(parts, thinking + text)
}

/**
 * How the body is cut into reads: `'16k'`, network-sized chunks as a socket delivers a burst (a
 * fast stream, or one that was buffered); `'event'`, every SSE event its own read, each ready as
 * soon as the last one was taken (the reader never waits on the network, so the relay still writes
 * about 16 KiB to a chunk); `'paced'`, every SSE event its own read on a later turn of the event
 * loop, as a model streaming tokens delivers them (the relay finds the network waiting after every
 * event and writes each one as it arrives).
 */
export type ReadSize = '16k' | 'event' | 'paced'

/** The read sizes the per-event rows show. */
export const READ_SIZES: readonly ReadSize[] = ['16k', 'event']

/** How a read size is named in the table. */
export const readLabel = (reads: ReadSize): string =>
  reads === '16k' ? '16 KiB reads' : reads === 'event' ? 'one event per read' : 'token-paced reads'

/** Bytes per read in `'16k'` mode. */
export const CHUNK_BYTES = 16 * 1024

/** The reads of `recording`, cut as `reads` says. */
export function chunksOf(recording: Recording, reads: ReadSize): Uint8Array[] {
  const { bytes, ends } = recording
  const chunks: Uint8Array[] = []
  if (reads === '16k') {
    for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES)
      chunks.push(bytes.subarray(offset, offset + CHUNK_BYTES))
  } else {
    let start = 0
    for (const end of ends) {
      chunks.push(bytes.subarray(start, end))
      start = end
    }
  }
  return chunks
}

/**
 * Resolves on the next turn of the event loop, after every `setImmediate` queued in this one: the
 * first hop lands in this turn's check phase, the second (queued there) in the next turn's. The
 * relay's writer, which flushes what it holds with a `setImmediate` once it waits on the network,
 * has then flushed, as it has when a socket read arrives a token later. One hop is not enough: the
 * read queued before the relay's flush would land first, and the relay would write about two
 * events in three chunks.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)))

/**
 * A fetch that answers every request with the recording, one chunk of `chunksOf` per read (a pull
 * of the body, as a socket read would be; in `'paced'` mode, a turn of the event loop later).
 * Nothing leaves the process.
 */
export function recordedFetch(
  recording: Recording,
  reads: ReadSize = '16k',
): typeof globalThis.fetch {
  const chunks = chunksOf(recording, reads)
  const paced = reads === 'paced'
  return async (_input, init) => {
    let index = 0
    const signal = init?.signal ?? undefined
    const deliver = (controller: ReadableStreamDefaultController<Uint8Array>) => {
      if (signal?.aborted === true) return controller.error(signal.reason)
      if (index >= chunks.length) return controller.close()
      controller.enqueue(chunks[index++]!)
    }
    const body = new ReadableStream<Uint8Array>(
      paced
        ? { pull: (controller) => nextTurn().then(() => deliver(controller)) }
        : { pull: deliver },
    )
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
  }
}

/** A stand-in Anthropic API on the loopback: see {@link startAnthropicUpstream}. */
export type Upstream = { url: string; server: Server; close(): Promise<void> }

/**
 * Starts a stand-in Anthropic API on 127.0.0.1: `POST /v1/messages` answers with the recording
 * `byModel` holds for the request's model, else `fallback`, written at once (a burst: the reader
 * gets it in as few reads as the socket makes). Anything else is 404.
 */
export async function startAnthropicUpstream(
  byModel: { readonly [model: string]: Recording },
  fallback: Recording,
): Promise<Upstream> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      let model = ''
      try {
        const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        if (typeof body === 'object' && body !== null && 'model' in body) model = String(body.model)
      } catch {
        // answered with the fallback
      }
      if (request.method !== 'POST' || !request.url?.startsWith('/v1/messages')) {
        response.writeHead(404).end()
        return
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      response.end((Object.hasOwn(byModel, model) ? byModel[model]! : fallback).bytes)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
