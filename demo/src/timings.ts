import type { Adapter, AssistantTurn } from '../../src/index.ts'
import type { AnswerStats } from './storage.ts'

/** When the events of one model call arrived (performance.now() milliseconds). */
export type Timing = {
  startedAt: number
  firstAt?: number | undefined
  thinkingAt?: number | undefined
  answerAt?: number | undefined
}

/** What a finished (or stopped) call's timing comes to. */
export function statsOf(timing: Timing, endedAt = performance.now()): AnswerStats {
  return {
    ttftMs: timing.firstAt === undefined ? undefined : timing.firstAt - timing.startedAt,
    thoughtMs:
      timing.thinkingAt === undefined
        ? undefined
        : (timing.answerAt ?? endedAt) - timing.thinkingAt,
  }
}

/**
 * Wraps an adapter to time its events: `live.current` follows the call in flight, and each done
 * turn gets its stats in `byTurn`. Adapter in, adapter out, like any thinkwire middleware.
 */
export function timed(
  adapter: Adapter,
  live: { current: Timing | undefined },
  byTurn: WeakMap<AssistantTurn, AnswerStats>,
): Adapter {
  return {
    provider: adapter.provider,
    model: adapter.model,
    async *stream(conversation, options) {
      const timing: Timing = { startedAt: performance.now() }
      live.current = timing
      for await (const event of adapter.stream(conversation, options)) {
        const now = performance.now()
        if (event.type === 'thinking') {
          timing.firstAt ??= now
          timing.thinkingAt ??= now
        } else if (event.type === 'text') {
          timing.firstAt ??= now
          timing.answerAt ??= now
        } else if (event.type === 'done') {
          byTurn.set(event.turn, statsOf(timing, now))
        }
        yield event
      }
    },
  }
}

/** `1.2 s`, `14 s`. */
export function seconds(ms: number): string {
  const s = ms / 1000
  return s < 10 ? `${s.toFixed(1)} s` : `${Math.round(s)} s`
}
