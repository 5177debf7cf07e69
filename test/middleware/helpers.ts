import type { Adapter } from '../../src/core/adapter.ts'
import type { Capabilities } from '../../src/core/capabilities.ts'
import type { Conversation } from '../../src/core/conversation.ts'
import { abortedError, ThinkwireError } from '../../src/core/errors.ts'
import type { Event } from '../../src/core/events.ts'
export { collect, failure, doneTurn } from '../helpers/stream.ts'

export const ask: Conversation = { turns: [{ role: 'user', content: 'What is 2 + 2?' }] }

/** An adapter that yields `events` and then throws `error` (the very object). */
export function throwing(events: Event[], error: unknown): Adapter {
  return {
    provider: 'throwing',
    model: 'fixed',
    async *stream() {
      yield* events
      throw error
    },
  }
}

export function rateLimited(retryAfterMs?: number): ThinkwireError {
  return new ThinkwireError({ kind: 'rate-limit', message: 'slow down', status: 429, retryAfterMs })
}

/**
 * A clock that only moves when something sleeps on it: `sleep` records the wait, advances the
 * clock at once, and rejects like the real one when the signal aborts.
 */
export function fakeClock(start = 1_000_000) {
  let time = start
  const waits: number[] = []
  return {
    waits,
    now: () => time,
    advance: (ms: number) => {
      time += ms
    },
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted === true) throw abortedError('fake-clock', signal.reason)
      waits.push(ms)
      time += ms
    },
  }
}

/** Capabilities to look for on a wrapper. */
export const someCapabilities: Capabilities = {
  thinking: { mode: 'effort', levels: ['low', 'high'], canDisable: false },
  tools: true,
  json: true,
  contextTokens: 200_000,
}

/** An adapter that answers 'ok', with `capabilities` when given, and without the property otherwise. */
export function plainAdapter(provider: string, capabilities?: Capabilities): Adapter {
  const stream = async function* (): AsyncGenerator<Event> {
    yield { type: 'text', text: 'ok' }
    yield {
      type: 'done',
      turn: {
        role: 'assistant',
        text: 'ok',
        usage: { inputTokens: 1, outputTokens: 1 },
        stopReason: 'stop',
        items: { provider, model: 'm', thinkingMode: 'off', data: [] },
      },
    }
  }
  return capabilities === undefined
    ? { provider, model: 'm', stream }
    : { provider, model: 'm', capabilities, stream }
}
