/**
 * The load run in Node, in-process: bursts of concurrent streams through `createRelay` on the
 * mock model, a tenth of the clients leaving mid-way. It reports whether each client that left had
 * its upstream call aborted (and only those), how many requests and responses are still
 * reachable after a full garbage collection (none should be), and the heap before and after.
 * No vitest import: `npm run stress` runs it too.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { mock } from '../../src/providers/mock/index.ts'
import { createRelay } from '../../src/relay/index.ts'
import { LOAD_MODEL } from './load-model.ts'

/** Figures of an in-process run. */
export type InProcessFigures = {
  streams: number
  /** Streams whose upstream signal was aborted when its client stayed, or not when it left. */
  wrongAborts: string[]
  /** Requests and responses still reachable after the run and a full collection. */
  retained: number
  heapBaseline: number
  heapAfter: number
}

/** A full garbage collection (V8's own, exposed for this). */
function collector(): () => void {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

/** Runs one warm-up burst, then `bursts` measured bursts of `streams` streams each. */
export async function runInProcess(bursts: number, streams: number): Promise<InProcessFigures> {
  const gc = collector()
  // With its pauses: the relay sends events that are ready together, so without them a whole
  // answer could leave in one chunk, before any client had the chance to leave mid-way.
  const model = mock({ provider: 'load', model: 'steady', ...LOAD_MODEL })
  const relay = createRelay({ providers: { load: [model] }, heartbeatMs: 0 })
  const refs: WeakRef<object>[] = []
  const wrongAborts: string[] = []

  const burst = async (label: string) => {
    await Promise.all(
      Array.from({ length: streams }, async (_, i) => {
        const controller = new AbortController()
        const request = new Request('http://relay.test/v1/chat', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'load/steady',
            conversation: { turns: [{ role: 'user', content: `${label} #${i}` }] },
          }),
          signal: controller.signal,
        })
        const response = await relay.fetch(request)
        refs.push(new WeakRef(response), new WeakRef(request))
        const reader = response.body!.getReader()
        for (let chunks = 0; ; chunks++) {
          const { done } = await reader.read()
          if (done) break
          if (i % 10 === 9 && chunks === 3) {
            controller.abort()
            await reader.cancel()
            break
          }
        }
      }),
    )
    for (const call of model.calls) {
      const first = call.conversation.turns[0]
      const i = Number(String(first?.role === 'user' ? first.content : '').split('#')[1])
      if (call.signal.aborted !== (i % 10 === 9)) {
        wrongAborts.push(`${label} #${i}: aborted ${call.signal.aborted}`)
      }
    }
    // The mock logs its calls (with their conversations): cleared so the heap figures mean something.
    ;(model.calls as unknown[]).length = 0
  }

  await burst('warm-up')
  refs.length = 0
  await settle()
  gc()
  const heapBaseline = process.memoryUsage().heapUsed
  for (let n = 1; n <= bursts; n++) await burst(`burst-${n}`)
  await settle()
  gc()
  await settle()
  gc()
  return {
    streams: bursts * streams,
    wrongAborts,
    retained: refs.filter((ref) => ref.deref() !== undefined).length,
    heapBaseline,
    heapAfter: process.memoryUsage().heapUsed,
  }
}
