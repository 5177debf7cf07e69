import { applyEvent, initialTurnState } from '../src/core/reducer.ts'
import type { Event } from '../src/core/events.ts'
import { guardStream, type Delta, type Finish } from '../src/kit/guard-stream.ts'
import { clock, fmt, measure, type Row } from './harness.ts'

const EVENTS = 40_000
const finish: Finish = { usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'stop' }
const deltas: Delta[] = Array.from({ length: EVENTS }, (_, i) => ({
  type: i % 2 === 0 ? 'thinking' : 'text',
  text: 'tok ',
}))

/** One delta per step, as a generator that yields each event would give them. */
async function* source(): AsyncGenerator<Event> {
  for (const delta of deltas) yield delta
  yield {
    type: 'done',
    turn: { role: 'assistant', text: '', usage: finish.usage, stopReason: 'stop' },
  }
}

/** A producer as an adapter writes one: a batch of deltas per network read (here, 64 per read). */
async function* producer(): AsyncGenerator<readonly Delta[], Finish> {
  for (let i = 0; i < deltas.length; i += 64) yield deltas.slice(i, i + 64)
  return finish
}

const signed = (n: number) => `${n < 0 ? '-' : '+'}${fmt(Math.abs(n), 3)}`

/**
 * What the shared stream guard (which folds every delta with the reducer into the `done` turn)
 * costs per event, beside a bare async generator that yields each event.
 */
export async function benchCore(): Promise<Row[]> {
  const [bare, guarded, reduced] = await measure([
    {
      name: 'bare generator',
      run: async () => {
        let n = 0
        for await (const _ of source()) n++
        return n
      },
    },
    {
      name: 'guardStream (folds the done turn)',
      run: async () => {
        let n = 0
        for await (const _ of guardStream({ provider: 'bench', model: 'm' }, producer)) n++
        return n
      },
    },
    {
      name: 'guardStream + a consumer folding again',
      run: async () => {
        let n = 0
        let state = initialTurnState
        for await (const event of guardStream({ provider: 'bench', model: 'm' }, producer)) {
          state = applyEvent(state, event)
          n++
        }
        return n
      },
    },
  ])
  return [bare!, guarded!, reduced!].map((m) => ({
    section: `core (40k events; ${clock.name})`,
    name: m.name,
    value: `${fmt(m.usPerEvent, 3)} µs/event`,
    note: m === bare ? '' : `${signed(m.usPerEvent - bare!.usPerEvent)} µs over bare`,
  }))
}
