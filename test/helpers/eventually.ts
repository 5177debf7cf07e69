/** How long {@link eventually} waits, and how often it looks. */
export type EventuallyOptions = {
  /** @defaultValue 3,000 */
  ms?: number
  /** @defaultValue 5 */
  every?: number
}

/**
 * Waits until `check` holds, looking every `every` ms, and fails naming `what` after `ms`. Counts
 * its looks rather than reading a clock: workerd only moves `Date.now()` on I/O.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what = 'the condition',
  { ms = 3_000, every = 5 }: EventuallyOptions = {},
): Promise<void> {
  for (let look = 0; look < Math.ceil(ms / every); look++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, every))
  }
  throw new Error(`${what}: still false after ${ms} ms`)
}
