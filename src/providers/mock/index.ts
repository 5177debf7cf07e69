import type { Adapter, CallOptions } from '../../core/adapter.ts'
import type { AssistantTurn, Conversation, StopReason, Usage } from '../../core/conversation.ts'
import { ThinkwireError, type ErrorKind } from '../../core/errors.ts'
import type { Event, ToolCall } from '../../core/events.ts'
import { guardStream, sleep } from '../../core/guard-stream.ts'
import { encodeTurns, thinkingModeOf, type ReplayTag } from '../../core/replay.ts'

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
   * script the mock thinks briefly and answers with a quote of the last user message.
   */
  script?: MockResponse[] | ((call: MockCall) => MockResponse) | undefined
  /** Characters per `thinking`/`text` delta. @defaultValue 8 */
  chunkSize?: number | undefined
  /** Wait before each delta, in ms. @defaultValue 0 */
  delayMs?: number | undefined
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

/** A turn of {@link MockCall.request}. */
export type MockRequestTurn =
  | { role: 'user'; content: unknown }
  | { role: 'tool'; results: unknown[] }
  | { role: 'assistant'; replayed: unknown[] }
  | { role: 'assistant'; text: string; toolCalls: ToolCall[] }

/** The models a relay serves as `mock/<id>` when it has no provider: `mock/echo`. */
export const mockModelIds: readonly string[] = ['echo']

/** A mock adapter, with the log of its calls. */
export type MockAdapter = Adapter & { readonly calls: readonly MockCall[] }

/**
 * An offline adapter: scripted, deterministic, streamed in small chunks, with scripted failures.
 * Its turns carry tagged items like any provider's, so replay and atomicity are testable.
 *
 * @example
 * ```ts
 * const turn = await complete(mock(), { turns: [{ role: 'user', content: 'hi' }] })
 * ```
 */
export function mock(options: MockOptions = {}): MockAdapter {
  const provider = options.provider ?? 'mock'
  const model = options.model ?? 'echo'
  const chunkSize = Math.max(1, options.chunkSize ?? 8)
  const delayMs = options.delayMs ?? 0
  const calls: MockCall[] = []

  function pick(call: MockCall): MockResponse {
    const script = options.script
    if (typeof script === 'function') return script(call)
    if (script !== undefined && script.length > 0) {
      return script[Math.min(call.index, script.length - 1)]!
    }
    return defaultAnswer(call.conversation, options.repeat ?? 1)
  }

  async function* produce(
    conversation: Conversation,
    callOptions: CallOptions,
    signal: AbortSignal,
  ): AsyncGenerator<Event> {
    const thinkingMode = thinkingModeOf(callOptions.thinking)
    const tag: ReplayTag = { provider, model, thinkingMode }
    const request = encodeTurns<MockRequestTurn>(conversation.turns, tag, {
      user: (turn) => ({ role: 'user', content: turn.content }),
      tool: (turn) => ({ role: 'tool', results: turn.results }),
      replay: (items) => ({ role: 'assistant', replayed: items.data }),
      reencode: (turn) => ({ role: 'assistant', text: turn.text, toolCalls: turn.toolCalls ?? [] }),
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
    const stallAt = response.stallAfterEvents ?? -1
    const failIfDue = async () => {
      if (emitted === stallAt) await sleep(2 ** 31 - 1, signal, provider)
      if (emitted === failAt && response.fail !== undefined) {
        const { kind, message, status, retryAfterMs } = response.fail
        throw new ThinkwireError({
          kind,
          message: message ?? `mock: scripted ${kind} failure`,
          status,
          retryAfterMs,
          provider,
        })
      }
    }
    async function* deltas(type: 'thinking' | 'text', value: string): AsyncGenerator<Event> {
      for (let i = 0; i < value.length; i += chunkSize) {
        if (delayMs > 0) await sleep(delayMs, signal, provider)
        await failIfDue()
        yield { type, text: value.slice(i, i + chunkSize) }
        emitted++
      }
    }

    yield* deltas('thinking', thinking)
    yield* deltas('text', text)
    for (const toolCall of toolCalls) {
      await failIfDue()
      yield { type: 'tool-call', call: toolCall }
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
    const turn: AssistantTurn = {
      role: 'assistant',
      text,
      usage,
      stopReason: response.stopReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop'),
      items: {
        provider,
        model,
        thinkingMode,
        data: [{ type: 'mock-turn', thinking, text, toolCalls, callIndex: call.index }],
      },
    }
    if (thinking !== '') turn.thinking = thinking
    if (toolCalls.length > 0) turn.toolCalls = toolCalls
    yield { type: 'done', turn }
  }

  return {
    provider,
    model,
    calls,
    stream(conversation, callOptions = {}) {
      return guardStream({ provider, options: callOptions }, ({ signal }) =>
        produce(conversation, callOptions, signal),
      )
    },
  }
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4)
}

function defaultAnswer(conversation: Conversation, repeat: number): MockResponse {
  const last = conversation.turns.findLast((turn) => turn.role === 'user')
  const question =
    last === undefined
      ? ''
      : typeof last.content === 'string'
        ? last.content
        : last.content.map((part) => (part.type === 'text' ? part.text : '[image]')).join(' ')
  const quoted = question.length > 200 ? `${question.slice(0, 200)}…` : question
  const sentence = `You said: "${quoted}". I am thinkwire's offline mock model, so this answer is scripted. `
  return {
    thinking: `The user wrote ${question.length} characters. I will quote them back and say what I am.`,
    text: sentence.repeat(Math.max(1, repeat)).trimEnd(),
  }
}
