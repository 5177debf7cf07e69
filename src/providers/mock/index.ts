import type { Adapter, CallOptions } from '../../core/adapter.ts'
import type {
  Conversation,
  StopReason,
  ToolTurn,
  Usage,
  UserTurn,
} from '../../core/conversation.ts'
import { abortedError, ThinkwireError, type ErrorKind } from '../../core/errors.ts'
import type { ToolCall } from '../../core/events.ts'
import { sleep } from '../../core/sleep.ts'
import { guardStream, type Delta, type Producer } from '../../kit/guard-stream.ts'
import { encodeTurns } from '../../kit/replay.ts'
import { defaultAnswer } from './default-answer.ts'
import { mockCapabilities, mockModelIds } from './models.ts'

export { mockCapabilities, mockModelIds }

/** A scripted failure: thrown before the first event, or after `afterEvents` events. */
export type MockFailure = {
  kind: ErrorKind
  message?: string | undefined
  /** Events to yield before failing. @defaultValue 0 */
  afterEvents?: number | undefined
  status?: number | undefined
  retryAfterMs?: number | undefined
}

/** One scripted answer. */
export type MockResponse = {
  thinking?: string | undefined
  text?: string | undefined
  toolCalls?: { id?: string | undefined; name: string; input: unknown }[] | undefined
  usage?: Partial<Usage> | undefined
  stopReason?: StopReason | undefined
  fail?: MockFailure | undefined
  /**
   * The thinking is spread over at least this long, in ms, whatever `delayMs` is (a thinking phase
   * a person can see, and stop). @defaultValue 0
   */
  thinkingMs?: number | undefined
  /** Characters per delta of this answer. @defaultValue the adapter's `chunkSize` */
  chunkSize?: number | undefined
  /** Goes silent after this many events and waits until aborted (for abort and idle-timeout tests). */
  stallAfterEvents?: number | undefined
}

/** Options of {@link mock}. */
export type MockOptions = {
  /** @defaultValue `'echo'` */
  model?: string | undefined
  /** @defaultValue `'mock'` */
  provider?: string | undefined
  /**
   * Answers in order, one per call (the last one repeats), or a function of the call. Without a
   * script the mock thinks briefly and answers with a quote of the last user message; a message
   * that mentions "markdown" or "demo" gets a tour instead: a second or so of thinking, then an
   * answer in markdown (a list, a code block and a table). When the call offers tools (a client's
   * or a relay's server tools) and the last turn is the user's, it calls the first offered tool
   * the user's message names ("get_weather" or "get weather" names `get_weather`), as `toolChoice`
   * allows, with arguments made from the tool's JSON Schema and the message; it answers tool
   * results by quoting them. When it calls none, its answer says how to ask for one.
   */
  script?: MockResponse[] | ((call: MockCall) => MockResponse) | undefined
  /** Characters per `thinking`/`text` delta. @defaultValue 8 */
  chunkSize?: number | undefined
  /** Wait before each delta, in ms. @defaultValue 0 */
  delayMs?: number | undefined
  /**
   * Paces the deltas instead of the clock: called before each delta, which is yielded once the
   * promise resolves; `delayMs` and an answer's `thinkingMs` are then not waited. A test that lets
   * each delta go when it is ready sees an answer stream step by step, however fast the machine
   * is. The call ends as aborted when its signal aborts, whether or not the promise settles; a
   * rejection fails it as a provider failure would.
   *
   * @example
   * ```ts
   * // Each delta waits for a step the test allows.
   * const steps: (() => void)[] = []
   * const paced = mock({ pace: () => new Promise((go) => steps.push(go)) })
   * ```
   */
  pace?: ((step: MockStep) => Promise<void>) | undefined
  /** Repeats the answer of the default script this many times (for long answers). @defaultValue 1 */
  repeat?: number | undefined
}

/** What one call to a mock received. */
export type MockCall = {
  /** 0 for the first call to this adapter, then 1, 2, ... */
  index: number
  conversation: Conversation
  options: CallOptions
  /** The conversation as the mock "sends" it: replayed items verbatim, other turns re-encoded. */
  request: MockRequestTurn[]
  /** The signal the mock's "upstream" saw: aborted when the caller left before `done`. */
  signal: AbortSignal
}

/** What {@link MockOptions.pace} is told before each delta. */
export type MockStep = {
  /** The delta's place in the answer: 0 for its first. */
  index: number
  /** The delta about to be yielded. */
  delta: Delta
  /** The call it belongs to (its `signal` aborts when the caller leaves). */
  call: MockCall
}

/** A turn of {@link MockCall.request}: user and tool turns as the conversation has them. */
export type MockRequestTurn =
  | UserTurn
  | ToolTurn
  | { role: 'assistant'; replayed: unknown[] }
  | { role: 'assistant'; text: string; toolCalls: ToolCall[] }

/** A mock adapter, with the log of its calls. */
export type MockAdapter = Adapter & { readonly calls: readonly MockCall[] }

/** A factory of mock adapters, one per model id, listing {@link mockModelIds}. */
export type MockFactory = ((model: string) => MockAdapter) & { readonly models: readonly string[] }

/**
 * An offline adapter: scripted, deterministic, streamed in small chunks, with scripted failures.
 * Its turns carry tagged items like any provider's, so replay and atomicity are testable. It is
 * also the smallest complete adapter: a producer under `guardStream` that yields deltas and
 * returns the finish record. Without a script it echoes, and calls the tools a message names
 * (see {@link MockOptions.script}), so every tool path runs without a key.
 *
 * @example
 * ```ts
 * const turn = await complete(mock(), { turns: [{ role: 'user', content: 'hi' }] })
 *
 * const clock = { parameters: { type: 'object' }, execute: () => new Date().toISOString() }
 * const asked = { turns: [{ role: 'user' as const, content: 'What does the clock say?' }] }
 * const { turn: answer } = await runTools(mock(), asked, { tools: { clock } })
 * answer.text // 'The clock tool returned "2026-12-06T07:00:00.000Z".'
 * ```
 */
export function mock(options: MockOptions = {}): MockAdapter {
  const provider = options.provider ?? 'mock'
  const model = options.model ?? 'echo'
  const chunkSize = Math.max(1, options.chunkSize ?? 8)
  const delayMs = options.delayMs ?? 0
  const pace = options.pace
  const calls: MockCall[] = []

  function pick(call: MockCall): MockResponse {
    const script = options.script
    if (typeof script === 'function') return script(call)
    if (script !== undefined && script.length > 0) {
      return script[Math.min(call.index, script.length - 1)]!
    }
    return defaultAnswer(call.conversation, call.options, {
      repeat: options.repeat ?? 1,
      now: new Date(),
    })
  }

  function produce(conversation: Conversation, callOptions: CallOptions): Producer {
    return async function* ({ signal, tag }) {
      // What a provider adapter sends: its own turns' items verbatim, other turns re-encoded.
      const request = encodeTurns<MockRequestTurn>(conversation.turns, tag, {
        user: (turn) => ({ role: 'user', content: turn.content }),
        tool: (turn) => ({ role: 'tool', results: turn.results }),
        replay: (items) => ({ role: 'assistant', replayed: items.data }),
        reencode: (turn) => ({
          role: 'assistant',
          text: turn.text,
          toolCalls: turn.toolCalls ?? [],
        }),
      })
      const call: MockCall = {
        index: calls.length,
        conversation,
        options: callOptions,
        request,
        signal,
      }
      calls.push(call)
      const response = pick(call)
      const thinking = callOptions.thinking === 'off' ? '' : (response.thinking ?? '')
      const text = response.text ?? ''
      const toolCalls: ToolCall[] = (response.toolCalls ?? []).map((c, i) => ({
        id: c.id ?? `call_${call.index}_${i}`,
        name: c.name,
        input: c.input,
      }))

      let emitted = 0
      const failAt = response.fail === undefined ? -1 : (response.fail.afterEvents ?? 0)
      const failIfDue = async () => {
        if (emitted === response.stallAfterEvents) await sleep(2 ** 31 - 1, signal, provider)
        if (emitted !== failAt || response.fail === undefined) return
        const { kind, message, status, retryAfterMs } = response.fail
        const reason = message ?? `mock: scripted ${kind} failure`
        throw new ThinkwireError({ kind, message: reason, status, retryAfterMs, provider })
      }
      const size = Math.max(1, response.chunkSize ?? chunkSize)
      const thoughts = pieces('thinking', thinking, size)
      const deltas: Delta[] = [
        ...thoughts,
        ...pieces('text', text, size),
        ...toolCalls.map((toolCall): Delta => ({ type: 'tool-call', call: toolCall })),
      ]
      const thinkingDelayMs = Math.max(delayMs, (response.thinkingMs ?? 0) / (thoughts.length || 1))
      for (const [index, delta] of deltas.entries()) {
        const wait = delta.type === 'thinking' ? thinkingDelayMs : delayMs
        if (pace !== undefined) await untilAborted(pace({ index, delta, call }), signal, provider)
        else if (wait > 0 && delta.type !== 'tool-call') await sleep(wait, signal, provider)
        await failIfDue()
        yield delta
        emitted++
      }
      await failIfDue()

      const usage: Usage = {
        inputTokens: response.usage?.inputTokens ?? estimateTokens(JSON.stringify(conversation)),
        outputTokens: response.usage?.outputTokens ?? estimateTokens(thinking + text),
      }
      if (thinking !== '')
        usage.reasoningTokens = response.usage?.reasoningTokens ?? estimateTokens(thinking)
      if (response.usage?.cacheReadTokens !== undefined)
        usage.cacheReadTokens = response.usage.cacheReadTokens
      if (response.usage?.cacheWriteTokens !== undefined)
        usage.cacheWriteTokens = response.usage.cacheWriteTokens
      return {
        usage,
        stopReason: response.stopReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop'),
        items: [{ type: 'mock-turn', thinking, text, toolCalls, callIndex: call.index }],
      }
    }
  }

  return {
    provider,
    model,
    capabilities: mockCapabilities,
    calls,
    stream(conversation, callOptions = {}) {
      return guardStream(
        { provider, model, options: callOptions },
        produce(conversation, callOptions),
      )
    },
  }
}

/**
 * A factory of mock adapters sharing `options`: `createMock(options)(model)` is
 * `mock({ ...options, model })`. Its `models` are {@link mockModelIds}.
 *
 * @example
 * ```ts
 * const registry = createRegistry({ mock: createMock({ delayMs: 20 }) })
 * ```
 */
export function createMock(options: Omit<MockOptions, 'model'> = {}): MockFactory {
  return Object.assign((model: string) => mock({ ...options, model }), { models: mockModelIds })
}

/** `promise`, or an `aborted` error as soon as `signal` aborts (a pace may not listen to it). */
function untilAborted(
  promise: Promise<void>,
  signal: AbortSignal,
  provider: string,
): Promise<void> {
  if (signal.aborted) {
    promise.catch(() => {})
    return Promise.reject(abortedError(provider, signal.reason))
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortedError(provider, signal.reason))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** `value` as deltas of `size` characters. */
function pieces(type: 'thinking' | 'text', value: string, size: number): Delta[] {
  const out: Delta[] = []
  for (let i = 0; i < value.length; i += size) out.push({ type, text: value.slice(i, i + size) })
  return out
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4)
}
