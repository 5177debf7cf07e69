import { applyEvent, initialTurnState } from '../src/core/reducer.ts'
import type { AssistantTurn } from '../src/core/conversation.ts'
import type { Event } from '../src/core/events.ts'
import { guardStream } from '../src/core/guard-stream.ts'
import { fmt, measure, type Row } from './harness.ts'

const EVENTS = 40_000
const turn: AssistantTurn = {
  role: 'assistant',
  text: '',
  usage: { inputTokens: 0, outputTokens: 0 },
  stopReason: 'stop',
}

async function* source(): AsyncGenerator<Event> {
  for (let i = 0; i < EVENTS; i++) yield { type: i % 2 === 0 ? 'thinking' : 'text', text: 'tok ' }
  yield { type: 'done', turn }
}

/** The cost the shared stream guard and the reducer add per event, over a bare async generator. */
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
      name: 'guardStream',
      run: async () => {
        let n = 0
        for await (const _ of guardStream({ provider: 'bench' }, source)) n++
        return n
      },
    },
    {
      name: 'guardStream + applyEvent',
      run: async () => {
        let n = 0
        let state = initialTurnState
        for await (const event of guardStream({ provider: 'bench' }, source)) {
          state = applyEvent(state, event)
          n++
        }
        return n
      },
    },
  ])
  return [bare!, guarded!, reduced!].map((m) => ({
    section: 'core (40k events)',
    name: m.name,
    value: `${fmt(m.usPerEvent, 3)} µs/event`,
    note: m === bare ? '' : `+${fmt(m.usPerEvent - bare!.usPerEvent, 3)} µs over bare`,
  }))
}
