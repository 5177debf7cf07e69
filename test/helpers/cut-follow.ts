/**
 * A fetch (over `fetch`) whose first follow stream (SSE) is cut on `drop()`, as a dropped network
 * cuts it: nothing more of it reaches its client, whether it had arrived (or the stream had even
 * opened) or not. Its resumes reach the relay only after `restore()`; `resumedFrom` lists the id
 * each resume said.
 */
export function cutFollow(fetch: typeof globalThis.fetch = globalThis.fetch) {
  let drop!: () => void
  let isDropped = false
  const dropped = new Promise<null>(
    (resolve) =>
      (drop = () => {
        isDropped = true
        resolve(null)
      }),
  )
  let restore!: () => void
  const restored = new Promise<void>((resolve) => (restore = resolve))
  const resumedFrom: (string | null)[] = []
  const cutting: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input))
    if (!url.pathname.endsWith('/stream') || url.searchParams.get('follow') !== 'true') {
      return fetch(input, init)
    }
    if (resumedFrom.push(url.searchParams.get('lastEventId')) > 1) {
      await restored
      return fetch(input, init)
    }
    const response = await fetch(input, init)
    const reader = response.body!.getReader()
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        // Checked first: a chunk that arrived before the cut and was not read yet is lost with it.
        const chunk = isDropped ? null : await Promise.race([reader.read(), dropped])
        if (chunk === null || isDropped) {
          void reader.cancel()
          return controller.error(new TypeError('network connection lost'))
        }
        if (chunk.done) return controller.close()
        controller.enqueue(chunk.value)
      },
    })
    return new Response(body, response)
  }
  return { fetch: cutting, drop, restore, resumedFrom: () => resumedFrom.slice(1) }
}

/**
 * A fetch (over `fetch`) whose follow streams (SSE) hand on nothing until `release()`: a follow
 * stream that lags (a slow network, a busy tab) while the store's own requests go as they come.
 */
export function laggingFollow(fetch: typeof globalThis.fetch = globalThis.fetch) {
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const lagging: typeof globalThis.fetch = async (input, init) => {
    const response = await fetch(input, init)
    if (!String(input).includes('/stream?follow=true')) return response
    const waits = new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        await released
        controller.enqueue(chunk)
      },
    })
    return new Response(response.body!.pipeThrough(waits), response)
  }
  return { fetch: lagging, release }
}
