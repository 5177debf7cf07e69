import type { Locator } from 'playwright-core'
import { openPage, release, type DemoPage, type DemoServer, type Worker } from './harness.ts'

/** The demo's two transports: a durable conversation (the default) and `POST /v1/chat`. */
export type Transport = 'durable' | 'stateless'

export const PROMPT = '[data-testid="prompt"]'
/** A question whose scripted answer is long enough to stop, reload or drop part-way. */
export const LONG_PROMPT =
  'Tell me everything about how streamed reasoning reaches the browser: the provider stream, ' +
  'the adapter, the relay on the edge, the SSE wire format, the client adapter and the React hook.'

/**
 * Opens the demo in its own browser context on the (gated) mock model, in one transport or on a
 * path; through `worker` when given (the same Worker behind a `link`).
 */
export async function openDemo(
  demo: DemoServer,
  options: {
    viewport?: { width: number; height: number } | undefined
    transport?: Transport | undefined
    path?: string | undefined
    worker?: Worker | undefined
  } = {},
): Promise<DemoPage> {
  const path = options.path ?? (options.transport === 'stateless' ? '/?transport=stateless' : '/')
  const { viewport } = options
  const page = await openPage(demo.browser, options.worker ?? demo.worker, {
    viewport,
    path,
    gate: demo.gate,
  })
  await page
    .locator('[data-testid="model"] option[value="mock/echo"]')
    .waitFor({ state: 'attached' })
  // The picker is disabled while an answer streams (a page opened on a conversation mid-answer).
  if ((await page.inputValue('[data-testid="model"]')) !== 'mock/echo') {
    await page.selectOption('[data-testid="model"]', 'mock/echo')
  }
  // Until `/v1/models` answered, the picker shows the saved model alone and no thinking levels: a
  // message sent then goes without one. The levels of mock/echo show that the list is in.
  await page.locator('[data-testid="thinking-level"]').waitFor({ state: 'attached' })
  return page
}

/** Done with `page`: its profile is reset and the page kept for another test (see `release`). */
export async function close(page: DemoPage): Promise<void> {
  await release(page)
}

export async function ask(page: DemoPage, text: string): Promise<void> {
  await page.fill(PROMPT, text)
  await page.press(PROMPT, 'Enter')
}

/** Waits until the nth answer (from 0) has finished: its usage line is there. */
export async function finished(page: DemoPage, nth = 0): Promise<void> {
  await page.locator('[data-testid="usage"]').nth(nth).waitFor()
}

export const answers = (page: DemoPage) => page.locator('[data-testid="answer"]')
export const lanes = (page: DemoPage) => page.locator('[data-testid="thinking"]')
export const focused = (page: DemoPage) =>
  page.evaluate(() => document.activeElement?.getAttribute('data-testid'))

/** The element's text, trimmed (the rendered markdown ends its paragraph with a line break). */
export const trimmed = async (element: Locator) => ((await element.textContent()) ?? '').trim()

/**
 * The requests of model calls that failed (`net::ERR_ABORTED` and the like): a finished answer's
 * must end normally, on either transport.
 */
export const callFailures = (page: DemoPage) =>
  page.failedRequests.filter((f) => /\/v1\/chat |\/(messages|regenerate) /.test(f))

/** The conversation a durable page has open (from `?c=` in its address), once it exists. */
export function conversationOf(page: DemoPage): string | undefined {
  return new URL(page.url()).searchParams.get('c') ?? undefined
}
