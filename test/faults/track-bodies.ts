/**
 * Tells which upstream response bodies are still open, so a test can prove that no upstream call
 * outlives its client. Web APIs only: the Worker fault entry uses it in workerd too.
 */
import type { ReplayFetch } from '../helpers/replay-fetch.ts'

/** A replaying upstream that also counts the response bodies still open. */
export type Upstream = ReplayFetch & {
  /**
   * Responses whose body is neither read to its end, nor failed, nor cancelled, and whose request
   * was not aborted: a connection that would still be held.
   */
  open(): number
}

/** Wraps a replaying fetch to tell which response bodies are still open. */
export function trackBodies(replay: ReplayFetch): Upstream {
  const states: ('open' | 'closed')[] = []
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const response = await replay.fetch(input, init)
    const source = response.body
    if (source === null) return response
    const index = states.push('open') - 1
    const close = () => void (states[index] = 'closed')
    init?.signal?.addEventListener('abort', close, { once: true })
    if (init?.signal?.aborted === true) close()
    const reader = source.getReader()
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read()
          if (done) {
            close()
            controller.close()
          } else controller.enqueue(value)
        } catch (error) {
          close()
          controller.error(error)
        }
      },
      cancel(reason) {
        close()
        return reader.cancel(reason)
      },
    })
    return new Response(body, { status: response.status, headers: response.headers })
  }
  return {
    ...replay,
    fetch: fetch as typeof globalThis.fetch,
    open: () => states.filter((state) => state === 'open').length,
  }
}
