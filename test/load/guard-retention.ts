/**
 * Whether `guardStream` keeps events alive after the consumer dropped them: a stream that held
 * them (a reaction per event on a promise that only settles at the end, say) would keep every
 * event of a long answer in memory. Run by `npm run stress`, which has a real `gc`.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { CallOptions } from '../../src/core/adapter.ts'
import type { Event } from '../../src/core/events.ts'
import { guardStream } from '../../src/kit/guard-stream.ts'

// A full garbage collection on demand, without starting node with --expose-gc.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** Lets pending jobs finish, so WeakRefs made in an earlier job may be cleared. */
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0))

const CASES: [name: string, options: () => CallOptions][] = [
  ['no call options', () => ({})],
  ['a signal', () => ({ signal: new AbortController().signal })],
  [
    'a signal and an idle timeout, as the relay passes them',
    () => ({ signal: new AbortController().signal, idleTimeoutMs: 60_000 }),
  ],
]

/** For each way of calling, how many of ten dropped events were still reachable (all should be 0). */
export async function guardRetention(): Promise<{ name: string; retained: number }[]> {
  const out: { name: string; retained: number }[] = []
  for (const [name, options] of CASES) {
    const stream = guardStream(
      { provider: 'p', model: 'm', options: options() },
      async function* () {
        for (let i = 0; i < 50; i++) yield { type: 'text', text: `event ${i} ${'x'.repeat(64)}` }
        return { usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'stop' }
      },
    )
    const refs: WeakRef<Event>[] = []
    let seen = 0
    let retained = -1
    for await (const event of stream) {
      if (event.type === 'done') break
      if (seen++ < 10) refs.push(new WeakRef(event))
      if (seen === 40) {
        await nextTask()
        gc()
        retained = refs.filter((ref) => ref.deref() !== undefined).length
      }
    }
    out.push({ name, retained })
  }
  return out
}
