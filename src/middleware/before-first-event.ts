import type { Event } from '../core/events.ts'

/**
 * Streams `attempt(0)`, and when it fails before yielding any event, lets `recover` decide what
 * happens: it returns (after waiting, say) to stream `attempt(1)`, and so on, or throws to give up.
 * A failure after the first event is rethrown untouched: the caller has seen part of a turn, and
 * starting over would show it twice.
 */
export async function* recoverBeforeFirstEvent(
  attempt: (index: number) => AsyncIterable<Event>,
  recover: (error: unknown, index: number) => Promise<void> | void,
): AsyncGenerator<Event, void, undefined> {
  for (let index = 0; ; index++) {
    let started = false
    try {
      for await (const event of attempt(index)) {
        started = true
        yield event
      }
      return
    } catch (error) {
      if (started) throw error
      await recover(error, index)
    }
  }
}
