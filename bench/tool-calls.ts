/**
 * What an answer with K tool calls costs per call, for K = 100, 1,000 and 4,000: the calls folded
 * with `applyEvent` and made into the turn with `turnOf`, as every consumer of a stream folds them,
 * and the same answer through `guardStream`, which folds them into its `done` turn. A state that
 * copies the list of calls at each call costs O(K) per call, O(K²) an answer, and its figure per
 * call grows with K; a state that links each call in front of the last costs the same per call at
 * every K. Numbers only. Run alone: `node --expose-gc --import tsx bench/tool-calls.ts`.
 */
import type { Event, ToolCall } from '../src/core/events.ts'
import { applyEvent, initialTurnState, turnOf } from '../src/core/reducer.ts'
import { guardStream, type Delta, type Finish } from '../src/kit/guard-stream.ts'
import { clock, fmt, isMain, measure, printTable, type Row, type Variant } from './harness.ts'

const COUNTS = [100, 1_000, 4_000] as const
const ROUNDS = 11
/** Calls folded for one figure, at least: a short answer is folded several times over. */
const CALLS_PER_SAMPLE = 20_000

const usage = { inputTokens: 10, outputTokens: 10 }
const finish: Finish = { usage, stopReason: 'tool-calls' }

/** K tool calls, each with a small input, as an adapter yields them. */
function callsOf(count: number): Delta[] {
  return Array.from({ length: count }, (_, i): Delta => {
    const call: ToolCall = { id: `call_${i}`, name: 'lookup', input: { query: `item ${i}` } }
    return { type: 'tool-call', call }
  })
}

/** Folds the calls and makes the turn of them; returns how many the turn holds. */
function fold(calls: readonly Event[]): number {
  let state = initialTurnState
  for (const event of calls) state = applyEvent(state, event)
  return turnOf(state, { usage, stopReason: 'tool-calls' }).toolCalls?.length ?? 0
}

/** Drains a guarded stream of the calls, handed over in one batch; returns the calls in `done`. */
async function guarded(calls: readonly Delta[]): Promise<number> {
  const stream = guardStream({ provider: 'bench', model: 'calls' }, async function* () {
    yield calls
    return finish
  })
  let held = 0
  for await (const event of stream) if (event.type === 'done') held = event.turn.toolCalls!.length
  return held
}

/** `run` over enough answers of `count` calls to fold `CALLS_PER_SAMPLE` calls; returns calls. */
function batched(count: number, run: () => number | Promise<number>): Variant['run'] {
  const answers = Math.max(1, Math.round(CALLS_PER_SAMPLE / count))
  return async () => {
    let calls = 0
    for (let i = 0; i < answers; i++) calls += await run()
    return calls
  }
}

/** Row "calls": µs per tool call at each K, folded alone and through the guard. */
export async function benchToolCalls(): Promise<Row[]> {
  const answers = COUNTS.map(callsOf)
  const variants: Variant[] = []
  for (const [i, count] of COUNTS.entries()) {
    const calls = answers[i]!
    variants.push(
      { name: `fold ${count}`, run: batched(count, () => fold(calls)) },
      { name: `guard ${count}`, run: batched(count, () => guarded(calls)) },
    )
  }
  const measured = await measure(variants, ROUNDS, 2)
  for (const m of measured) {
    const count = Number(m.name.split(' ')[1])
    if (m.events % count !== 0) throw new Error(`${m.name}: the turn held ${m.events} calls`)
  }
  const section = `calls. an answer of K tool calls, per call (K = ${COUNTS.join(', ')}; ${clock.name})`
  const per = (offset: number) =>
    COUNTS.map((_, i) => `${fmt(measured[2 * i + offset]!.usPerEvent)} µs`)
  const growth = (offset: number) => {
    const first = measured[offset]!.usPerEvent
    const last = measured[2 * (COUNTS.length - 1) + offset]!.usPerEvent
    return `${fmt(last / first, 1)}x per call from K = ${COUNTS[0]} to ${COUNTS.at(-1)}`
  }
  return [
    { section, name: 'per call, at K =', value: COUNTS.map(String) },
    { section, name: 'applyEvent per call, then turnOf', value: per(0), note: growth(0) },
    { section, name: 'guardStream, drained to done', value: per(1), note: growth(1) },
  ]
}

if (isMain(import.meta.url)) printTable(await benchToolCalls())
