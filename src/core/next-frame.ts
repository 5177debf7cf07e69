import type { Scheduler } from './notifier.ts'

/**
 * The scheduler of a store that a page renders: once per animation frame (`requestAnimationFrame`),
 * else after a 16 ms timer.
 */
export const nextFrame: Scheduler = (flush) => {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(flush)
  else setTimeout(flush, 16)
}
