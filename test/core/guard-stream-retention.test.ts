import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../src/core/conversation.ts'
import type { Event } from '../../src/core/events.ts'
import { guardStream } from '../../src/core/guard-stream.ts'

// A full garbage collection on demand, without starting node with --expose-gc.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const turn: AssistantTurn = {
  role: 'assistant',
  text: '',
  usage: { inputTokens: 0, outputTokens: 0 },
  stopReason: 'stop',
}

/** Lets pending jobs finish, so WeakRefs made in an earlier job may be cleared. */
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('guardStream memory', () => {
  it.each([
    ['no call options', () => ({})],
    ['a signal', () => ({ signal: new AbortController().signal })],
    [
      'a signal and an idle timeout, as the relay passes them',
      () => ({ signal: new AbortController().signal, idleTimeoutMs: 60_000 }),
    ],
  ])('keeps no event alive once the consumer dropped it, with %s', async (_, options) => {
    const stream = guardStream({ provider: 'p', options: options() }, async function* () {
      for (let i = 0; i < 50; i++) yield { type: 'text', text: `event ${i} ${'x'.repeat(64)}` }
      yield { type: 'done', turn }
    })
    const refs: WeakRef<Event>[] = []
    let seen = 0
    for await (const event of stream) {
      if (event.type === 'done') break
      if (seen++ < 10) refs.push(new WeakRef(event))
      if (seen === 40) {
        await nextTask()
        gc()
        // Ten events came and went; a stream that held them (a reaction per event on a promise
        // that only settles at the end) would still reach every one.
        expect(refs.filter((ref) => ref.deref() !== undefined)).toHaveLength(0)
      }
    }
    expect(seen).toBe(50)
  })
})
