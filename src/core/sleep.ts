import { abortedError } from './errors.ts'

/** Waits `ms`, or rejects with an `aborted` error as soon as `signal` aborts. */
export function sleep(
  ms: number,
  signal?: AbortSignal | undefined,
  provider?: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(abortedError(provider, signal.reason))
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortedError(provider, signal?.reason))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
