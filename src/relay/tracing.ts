import type { CallOptions } from '../core/adapter.ts'
import type { AssistantTurn, Conversation, StopReason } from '../core/conversation.ts'
import type { ErrorKind } from '../core/errors.ts'

/** A span attribute's value, as OpenTelemetry takes it. */
export type SpanValue = string | number | boolean | readonly string[]

/**
 * One finished span, in OpenTelemetry's terms: ids in lowercase hex, times in milliseconds since
 * the epoch. The relay makes one per model call (`chat {model}`, kind client), and in a durable
 * conversation's loop one per run of its server tools (`execute_tool`, kind internal, under the
 * span of the model call that asked for them), with the attributes of the GenAI semantic
 * conventions.
 */
export type RelaySpan = {
  /** 32 hex digits; the caller's, when its `traceparent` was continued. */
  traceId: string
  /** 16 hex digits. */
  spanId: string
  /** The caller's span, from its `traceparent`. */
  parentSpanId?: string | undefined
  name: string
  kind: 'client' | 'internal'
  startTimeMs: number
  endTimeMs: number
  attributes: Record<string, SpanValue>
  status: { code: 'ok' } | { code: 'error'; message: string }
}

/** Where finished spans go (an OTLP exporter, an in-memory list in tests, your own). */
export interface SpanExporter {
  /** Called once per span, after the answer has ended; a returned promise is waited on with `waitUntil`. */
  export(spans: readonly RelaySpan[]): void | Promise<void>
}

/** `RelayOptions.tracing`: traces of each chat request. */
export type TracingOptions = {
  exporter: SpanExporter
  /**
   * Put the conversation, the stop sequences and the answer in the span
   * (`gen_ai.system_instructions`, `gen_ai.input.messages`, `gen_ai.request.stop_sequences`,
   * `gen_ai.output.messages`). They hold what users wrote: off unless you turn it on.
   * @defaultValue false
   */
  captureContent?: boolean | undefined
}

/**
 * The caller's trace, from a W3C `traceparent` header. `sampled` is the caller's own decision: the
 * relay records its span of every call either way (see {@link traceCall}).
 */
export type TraceParent = { traceId: string; spanId: string; sampled: boolean }

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/

/**
 * Reads a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`); undefined when absent or invalid
 * (an all-zero id, version `ff`, or a version 00 header with extra fields), so a new trace starts.
 */
export function parseTraceparent(header: string | null): TraceParent | undefined {
  const match = TRACEPARENT.exec(header?.trim().toLowerCase() ?? '')
  if (match === null) return undefined
  const [, version, traceId, spanId, flags, rest] = match
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined
  if (/^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return undefined
  return { traceId: traceId!, spanId: spanId!, sampled: (parseInt(flags!, 16) & 1) === 1 }
}

/** A span's ids, which the spans under it name as their trace and parent. */
export type SpanContext = { traceId: string; spanId: string }

/** Two hex digits per byte value, made once: ids are made per span. */
const HEX = Array.from({ length: 256 }, (_, byte) => (byte | 256).toString(16).slice(1))

/**
 * Random bytes drawn a few kilobytes at a time: one `getRandomValues` call costs about as much as
 * building the rest of a span (several µs in Node), whatever its size.
 */
const pool = new Uint8Array(4096)
let drawn = pool.length

/** `bytes` random bytes (at most 4,096) as lowercase hex. */
export function randomHex(bytes: number): string {
  if (drawn + bytes > pool.length) {
    crypto.getRandomValues(pool)
    drawn = 0
  }
  let out = ''
  for (const end = drawn + bytes; drawn < end; drawn++) out += HEX[pool[drawn]!]
  return out
}

/** What the chat route knows of one call, gathered as it goes. */
export type CallRecord = {
  provider: string
  model: string
  options: CallOptions
  conversation: Conversation
  parent: TraceParent | undefined
  /** Epoch milliseconds when the request arrived. */
  startMs: number
  /** Milliseconds from arrival to the first event, when one came. */
  firstChunkMs?: number | undefined
  /** Milliseconds from arrival to the end. */
  durationMs: number
  /** Whether the answer was streamed to the client. */
  streamed: boolean
  turn?: AssistantTurn | undefined
  /** Why the call ended when it has no turn to say it: `aborted` for an answer stopped on request. */
  finishReason?: StopReason | undefined
  error?: { kind: ErrorKind } | undefined
  /** The durable conversation the call answers in (`gen_ai.conversation.id`). */
  conversationId?: string | undefined
}

/**
 * The span of one model call, with the GenAI semantic conventions' attributes: the operation,
 * provider, request and response model, the request's limits, token usage, the finish reason,
 * the call's duration and time to first chunk (in seconds, as the conventions' metrics of the same
 * names), the error type, the cost, and the conversation's id. Prompt, answer and stop sequences
 * (text the client wrote) only when `captureContent`.
 */
export function callSpan(
  call: CallRecord,
  captureContent: boolean,
  ids: SpanContext = { traceId: call.parent?.traceId ?? randomHex(16), spanId: randomHex(8) },
): RelaySpan {
  const { turn, options } = call
  const attributes: Record<string, SpanValue> = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': call.provider,
    'gen_ai.request.model': call.model,
    'gen_ai.client.operation.duration': call.durationMs / 1000,
    'thinkwire.streamed': call.streamed,
  }
  if (options.maxTokens !== undefined) attributes['gen_ai.request.max_tokens'] = options.maxTokens
  if (options.temperature !== undefined) {
    attributes['gen_ai.request.temperature'] = options.temperature
  }
  if (call.conversationId !== undefined) {
    attributes['gen_ai.conversation.id'] = call.conversationId
  }
  if (call.firstChunkMs !== undefined) {
    attributes['gen_ai.client.operation.time_to_first_chunk'] = call.firstChunkMs / 1000
  }
  if (turn !== undefined) {
    const { usage } = turn
    attributes['gen_ai.response.model'] = turn.items?.model ?? call.model
    attributes['gen_ai.response.finish_reasons'] = [turn.stopReason]
    attributes['gen_ai.usage.input_tokens'] = usage.inputTokens
    attributes['gen_ai.usage.output_tokens'] = usage.outputTokens
    if (usage.cacheReadTokens !== undefined) {
      attributes['gen_ai.usage.cache_read.input_tokens'] = usage.cacheReadTokens
    }
    if (usage.cacheWriteTokens !== undefined) {
      attributes['gen_ai.usage.cache_creation.input_tokens'] = usage.cacheWriteTokens
    }
    if (usage.reasoningTokens !== undefined) {
      attributes['gen_ai.usage.reasoning.output_tokens'] = usage.reasoningTokens
    }
    if (usage.cost !== undefined) attributes['thinkwire.usage.cost_usd'] = usage.cost
  } else if (call.finishReason !== undefined) {
    attributes['gen_ai.response.finish_reasons'] = [call.finishReason]
  }
  if (call.error !== undefined) attributes['error.type'] = call.error.kind
  if (captureContent) {
    // Stop sequences are the client's text too.
    if (options.stop !== undefined) attributes['gen_ai.request.stop_sequences'] = options.stop
    const { system, turns } = call.conversation
    if (system !== undefined) attributes['gen_ai.system_instructions'] = system
    attributes['gen_ai.input.messages'] = JSON.stringify(turns.map(withoutItems))
    if (turn !== undefined) {
      const output = { role: 'assistant', text: turn.text, toolCalls: turn.toolCalls }
      attributes['gen_ai.output.messages'] = JSON.stringify([output])
    }
  }
  return {
    ...ids,
    parentSpanId: call.parent?.spanId,
    name: `chat ${call.model}`,
    kind: 'client',
    startTimeMs: call.startMs,
    endTimeMs: call.startMs + call.durationMs,
    attributes,
    // Only the kind: an upstream message may quote the prompt.
    status: call.error === undefined ? { code: 'ok' } : { code: 'error', message: call.error.kind },
  }
}

/** When a call's request arrived: the epoch time a span starts at, and a monotonic clock. */
export type CallStart = { epochMs: number; perfMs: number }

/** Now, as a {@link CallStart}. */
export function callStart(): CallStart {
  return { epochMs: Date.now(), perfMs: performance.now() }
}

/** How a traced call ended: its turn, or its failure, or (stopped on request) a finish reason. */
export type CallOutcome = Pick<CallRecord, 'turn' | 'finishReason' | 'error'>

/** The span of one call in progress, from {@link traceCall}. */
export type CallTrace = {
  /** Its ids, drawn as it starts: the spans under it (its tools' runs) name it as their parent. */
  readonly span: SpanContext
  /** An event arrived: the first one sets the time to first chunk. */
  firstChunk(): void
  /** Ends the span and hands it to the exporter (once; later calls do nothing). */
  end(outcome: CallOutcome): void
}

/**
 * Starts the span of one model call, continuing the caller's `traceparent` (its trace id, and its
 * span as the parent): undefined when tracing is off, so an untraced call does no tracing work.
 * The caller's sampled flag is not followed: a call the relay bills is recorded whatever a client
 * asks. The span is exported when it ends, and the export is handed to `waitUntil`; an exporter
 * that throws or rejects never reaches the answer.
 */
export function traceCall(
  tracing: TracingOptions | undefined,
  traceparent: string | null,
  call: Pick<
    CallRecord,
    'provider' | 'model' | 'options' | 'conversation' | 'streamed' | 'conversationId'
  >,
  start: CallStart,
  waitUntil: ((promise: Promise<unknown>) => void) | undefined,
): CallTrace | undefined {
  if (tracing === undefined) return undefined
  const parent = parseTraceparent(traceparent)
  const span: SpanContext = { traceId: parent?.traceId ?? randomHex(16), spanId: randomHex(8) }
  let firstChunkMs: number | undefined
  let ended = false
  return {
    span,
    firstChunk() {
      firstChunkMs ??= performance.now() - start.perfMs
    },
    end(outcome) {
      if (ended) return
      ended = true
      const record = {
        ...call,
        ...outcome,
        parent,
        startMs: start.epochMs,
        firstChunkMs,
        durationMs: performance.now() - start.perfMs,
      }
      exportSpan(tracing, callSpan(record, tracing.captureContent === true, span), waitUntil)
    },
  }
}

/**
 * One run of a durable conversation's server tools (a tool step of its loop, DESIGN §13): from
 * the first call that started to the last that ended, in this process.
 */
export type ToolRunRecord = {
  /** The span of the model call whose tool calls these are. */
  parent: SpanContext
  conversationId: string
  /** The conversation's tool step. */
  step: number
  /** The calls that ran, and whether each ended in an error result. */
  calls: readonly { callId: string; name: string; isError: boolean }[]
  startMs: number
  durationMs: number
}

/**
 * The span of a run of server tools: `execute_tool` (with the tool's name when all the calls are
 * one tool's), kind internal, a child of the model call's span, with the tool names and call ids
 * (`gen_ai.tool.name` and `gen_ai.tool.call.id` for a run of one call), and an error status
 * counting the calls that failed.
 */
export function toolRunSpan(run: ToolRunRecord): RelaySpan {
  const names = [...new Set(run.calls.map((call) => call.name))]
  const attributes: Record<string, SpanValue> = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.conversation.id': run.conversationId,
    'thinkwire.tool.step': run.step,
    'thinkwire.tool.names': names,
    'thinkwire.tool.call_ids': run.calls.map((call) => call.callId),
  }
  if (names.length === 1) attributes['gen_ai.tool.name'] = names[0]!
  if (run.calls.length === 1) attributes['gen_ai.tool.call.id'] = run.calls[0]!.callId
  const failed = run.calls.filter((call) => call.isError).length
  if (failed > 0) attributes['error.type'] = 'tool_error'
  return {
    traceId: run.parent.traceId,
    spanId: randomHex(8),
    parentSpanId: run.parent.spanId,
    name: names.length === 1 ? `execute_tool ${names[0]}` : 'execute_tool',
    kind: 'internal',
    startTimeMs: run.startMs,
    endTimeMs: run.startMs + run.durationMs,
    attributes,
    status:
      failed === 0
        ? { code: 'ok' }
        : { code: 'error', message: `${failed} of ${run.calls.length} calls failed` },
  }
}

/** Hands `span` to the exporter, the export to `waitUntil`; an exporter's failure goes nowhere. */
export function exportSpan(
  tracing: TracingOptions,
  span: RelaySpan,
  waitUntil: ((promise: Promise<unknown>) => void) | undefined,
): void {
  const exported = (async () => tracing.exporter.export([span]))().catch(() => {})
  waitUntil?.(exported)
}

/** A turn as a span shows it: the provider's opaque items (signatures, encrypted state) left out. */
function withoutItems(turn: Conversation['turns'][number]): unknown {
  if (turn.role !== 'assistant' || turn.items === undefined) return turn
  const { items: _, ...rest } = turn
  return rest
}
