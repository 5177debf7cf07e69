import type { Locator } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  answers,
  ask,
  callFailures,
  close,
  conversationOf,
  finished,
  focused,
  lanes,
  LONG_PROMPT,
  openDemo as openDemoPage,
  PROMPT,
  trimmed,
  type Transport,
} from './demo-page.ts'
import { duration, parseServerTiming } from '../../demo/src/timings.ts'
import { DESKTOP, openPage, PHONE, SIZES, type DemoPage, type DemoServer } from './harness.ts'

// The demo on the mock model, whose deltas wait at a gate until the test lets them go: a test sees
// an answer think, stream, stop or break off exactly as far as it allowed, on any machine. Tests
// run on the default transport (a durable conversation) unless they are about the stateless one
// (`/?transport=stateless`, which intercepts `POST /v1/chat`). Behaviour that does not depend on
// the viewport is tested at one size; the phone gets its own layout test and the stops and errors
// whose controls it must show.
/** Per test: a generous bound, for a machine busy with other test files. */
const TIMEOUT = 90_000

/** The server of {@link demoTests}' suite, set as it is registered. */
let demo: DemoServer
const gate = () => demo.gate

/** The demo's own tests, on the gated Worker and Chromium of `server` (see `browser.test.ts`). */
export function demoTests(server: DemoServer): void {
  demo = server
  describe('demo in Chromium, served by wrangler dev', suite)
}

function openDemo(viewport = DESKTOP, transport: Transport = 'durable'): Promise<DemoPage> {
  return openDemoPage(demo, { viewport, transport })
}

/**
 * Waits until the page shows the thinking lane open and streaming `thinking` (what the gate let
 * go of it), with no answer yet.
 */
async function thinkingLive(page: DemoPage, thinking: string): Promise<void> {
  await page.waitForFunction((sent) => {
    const lane = document.querySelector('[data-testid="thinking"]')
    return (
      lane?.getAttribute('data-open') === 'true' &&
      (lane.textContent ?? '').includes(sent) &&
      document.querySelector('[data-testid="answer"]') === null
    )
  }, thinking)
}

/** Waits until the nth answer (from 0) shows exactly `text` (what the gate let go of it). */
async function showing(page: DemoPage, text: string, nth = 0): Promise<void> {
  await page.waitForFunction(
    ([sent, at]) =>
      document.querySelectorAll('[data-testid="answer"]')[at]?.textContent?.trim() === sent,
    [text.trim(), nth] as const,
  )
}

const TRANSPORTS = ['durable', 'stateless'] as const

/** Waits until the element says `text` (after a render to come), then checks it says exactly that. */
async function says(element: Locator, text: string): Promise<void> {
  await element.filter({ hasText: text }).waitFor({ state: 'attached' })
  await expect(element.textContent()).resolves.toBe(text)
}

/** The path of a request that starts a model call, on either transport. */
const isModelCall = (url: string) =>
  /^\/v1\/chat$|^\/v1\/conversations\/[^/]+\/(messages|regenerate)$/.test(new URL(url).pathname)

function suite(): void {
  for (const transport of TRANSPORTS) {
    it(
      `streams thinking then the answer, shows the relay's server-timing, ends the request normally, and keeps the conversation across a reload (${transport})`,
      async () => {
        const page = await openDemo(DESKTOP, transport)
        // The page says which transport it uses, and links to the other.
        const label = page.getByTestId('transport')
        await expect(label.textContent()).resolves.toContain(
          transport === 'durable' ? 'Durable conversation' : 'Stateless',
        )
        await expect(label.getByRole('link').getAttribute('href')).resolves.toBe(
          transport === 'durable' ? '/?transport=stateless' : '/',
        )
        gate().hold()
        const call = page.waitForResponse((response) => isModelCall(response.url()))
        await ask(page, 'Hello thinkwire')
        // While it thinks, the lane is open and streams; there is no answer yet.
        const thought = await gate().sendUntil((sent) => sent.thinking.includes('The user wrote'))
        await thinkingLive(page, thought.thinking)
        await expect(page.locator('[data-testid="stop"]').isVisible()).resolves.toBe(true)
        const response = await call
        const body = response.request().postDataJSON() as Record<string, unknown>
        expect(body['model']).toBe('mock/echo')
        expect(body['thinking']).toBe(await page.inputValue('[data-testid="thinking-level"]'))
        if (transport === 'durable') {
          // The conversation was created by the first send, and its id is in the address.
          expect(conversationOf(page)).toMatch(/^[\w-]{22}$/)
          expect(body['turn']).toEqual({ role: 'user', content: 'Hello thinkwire' })
        }
        const timing = parseServerTiming(response.headers()['server-timing'] ?? null)
        expect(timing['relay']).toBeGreaterThanOrEqual(0)

        // When the answer starts, the lane folds (while the answer streams), to "Thought for N s".
        const started = await gate().sendUntil((sent) => sent.text !== '')
        await showing(page, started.text)
        const lane = lanes(page).first()
        await expect(lane.getAttribute('data-open')).resolves.toBe('false')
        await expect(lane.textContent()).resolves.toMatch(/^Thought/)
        await expect(page.locator('[data-testid="stop"]').isVisible()).resolves.toBe(true)
        gate().open()
        await finished(page)
        await expect(lane.getAttribute('data-open')).resolves.toBe('false')
        await expect(lane.textContent()).resolves.toMatch(/^Thought for \d+(\.\d)? s$/)
        const answer = await answers(page).first().textContent()
        expect(answer).toContain('You said: "Hello thinkwire"')
        await expect(page.locator('[data-testid="usage"]').first().textContent()).resolves.toMatch(
          /first token \d+(\.\d)? s.*\d+ in · \d+ out/,
        )
        // Time to first token, split as the relay's server-timing says: its own work, then the
        // model's (which /v1/chat measures itself, having waited for the first event).
        const split = await page.locator('[data-testid="first-token"]').first().textContent()
        const model =
          transport === 'stateless' ? duration(timing['upstream']!) : '\\d+(\\.\\d)? m?s'
        expect(split).toMatch(
          new RegExp(
            `^first token \\d+(\\.\\d)? s \\(relay ${duration(timing['relay']!)} · model ${model}\\)$`,
          ),
        )
        // The finished request ended as it should: no net::ERR_ABORTED.
        expect(callFailures(page)).toEqual([])

        // The lane expands again on demand, showing the reasoning.
        await lane.locator('button').click()
        await expect(lane.textContent()).resolves.toContain('The user wrote 15 characters')

        // Reload: the conversation (with its opaque items) is back, and the next turn is accepted.
        const id = conversationOf(page)
        await page.reload()
        await answers(page).first().waitFor()
        await expect(answers(page).first().textContent()).resolves.toBe(answer)
        await expect(page.locator('.message.user .bubble').first().textContent()).resolves.toBe(
          'Hello thinkwire',
        )
        await expect(lanes(page).first().textContent()).resolves.toMatch(/^Thought for/)
        await page.fill(PROMPT, 'And once more')
        await page.click('[data-testid="send"]')
        await finished(page, 1)
        await expect(answers(page).nth(1).textContent()).resolves.toContain('"And once more"')
        await expect(page.locator('[data-testid="error"]').count()).resolves.toBe(0)
        expect(callFailures(page)).toEqual([])
        // Still the same conversation.
        expect(conversationOf(page)).toBe(id)
        await close(page)
      },
      TIMEOUT,
    )
  }

  it(
    'stops a long answer mid-way with the button or Escape',
    async () => {
      const page = await openDemo()
      // Shift+Enter is a new line, not a send.
      await page.click(PROMPT)
      await page.keyboard.type('line one')
      await page.keyboard.press('Shift+Enter')
      await page.keyboard.type('line two')
      await expect(page.inputValue(PROMPT)).resolves.toBe('line one\nline two')
      await expect(page.locator('[data-testid="user-message"]').count()).resolves.toBe(0)

      gate().hold()
      await ask(page, LONG_PROMPT)
      const part = await gate().sendUntil((sent) => sent.text.length > 40)
      await showing(page, part.text)
      await page.click('[data-testid="stop"]')
      await page.locator('[data-testid="send"]').waitFor()
      await expect(focused(page)).resolves.toBe('prompt')
      // It keeps exactly what had arrived, and no more came.
      await expect(trimmed(answers(page).first())).resolves.toBe(part.text.trim())
      await expect(
        page.locator('.message.assistant').first().getAttribute('data-status'),
      ).resolves.toBe('stopped')

      // Escape stops from anywhere, and focus comes back to the prompt.
      await ask(page, LONG_PROMPT)
      const again = await gate().sendUntil((sent) => sent.text.length > 20)
      await showing(page, again.text, 1)
      await page.locator('[data-testid="thinking"] button').first().focus()
      await page.keyboard.press('Escape')
      await page.locator('[data-testid="send"]').waitFor()
      await expect(focused(page)).resolves.toBe('prompt')
      await expect(
        page.locator('.message.assistant').nth(1).getAttribute('data-status'),
      ).resolves.toBe('stopped')
      await expect(trimmed(answers(page).nth(1))).resolves.toBe(again.text.trim())
      await close(page)
    },
    TIMEOUT,
  )

  it(
    'renders markdown safely as it streams: the thinking alone, then a list, an unfinished fence as code, and a table',
    async () => {
      const page = await openDemo()
      gate().hold()
      await ask(page, 'Show me a markdown demo.')
      // The thinking shows alone first.
      const thought = await gate().sendUntil((sent) => sent.thinking.includes('The user wants'))
      await thinkingLive(page, thought.thinking)
      // The list has started: the intro paragraph before it is complete.
      await gate().sendUntil((sent) => sent.text.includes('1. **Thinking**'))
      await page.waitForFunction(() => document.querySelector('.answer ol') !== null)
      // A finished block is not parsed or rendered again while later ones grow: the intro
      // paragraph's element sees no change from here to the end of the answer.
      await page.evaluate(() => {
        const first = document.querySelector('.answer .md-block')!
        const watch = window as unknown as { introChanges: number; intro: Element }
        watch.introChanges = 0
        watch.intro = first
        new MutationObserver((records) => (watch.introChanges += records.length)).observe(first, {
          subtree: true,
          childList: true,
          characterData: true,
          attributes: true,
        })
      })
      // Mid-fence, the code is already a code block, with no fence characters on screen.
      const midFence = await gate().sendUntil((sent) => sent.text.includes('import { relay }'))
      expect(midFence.text).not.toContain('print(event.text)')
      await page.waitForFunction(
        () =>
          document
            .querySelector('.answer.streaming pre code')
            ?.textContent?.includes('import { relay }') === true,
      )
      await expect(answers(page).first().textContent()).resolves.not.toContain('```')
      gate().open()
      await finished(page)
      await expect(
        page.evaluate(() => {
          const watch = window as unknown as { introChanges: number; intro: Element }
          return {
            changes: watch.introChanges,
            same: document.querySelector('.answer .md-block') === watch.intro,
          }
        }),
      ).resolves.toEqual({ changes: 0, same: true })
      const answer = answers(page).first()
      await expect(answer.locator('ol > li').count()).resolves.toBe(3)
      await expect(answer.locator('ol strong').first().textContent()).resolves.toBe('Thinking')
      await expect(answer.locator('pre code').textContent()).resolves.toContain(
        "for await (const event of adapter.stream(conversation)) {\n  if (event.type === 'text')",
      )
      await expect(answer.locator('table tbody tr').count()).resolves.toBe(3)
      await expect(answer.locator('td code').allTextContents()).resolves.toEqual([
        'thinking',
        'text',
        'done',
      ])
      await expect(answer.locator('li code').first().textContent()).resolves.toBe('Esc')
      const text = (await answer.textContent()) ?? ''
      expect(text).not.toContain('```')
      expect(text).not.toContain('| ---')
      expect(text).not.toContain('**')
      // Wide code and tables scroll inside the answer, not the page (a phone's: 'fits a phone').
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      )
      expect(overflow).toBeLessThanOrEqual(0)
      expect(callFailures(page)).toEqual([])
      // The code block's Copy button, from the keyboard: the code is on the clipboard, and said.
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
      await answer.getByRole('button', { name: 'Copy' }).focus()
      await page.keyboard.press('Enter')
      await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor({ state: 'attached' })
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(
        await answer.locator('pre code').textContent(),
      )
      await close(page)
    },
    TIMEOUT,
  )

  it(
    'renders text that ends inside a code fence as code, with no markup from it (stateless)',
    async () => {
      const page = await openDemo(DESKTOP, 'stateless')
      // The answer as it stood mid-stream: a list, then a fence not closed yet.
      const text = 'Steps:\n\n- one\n- two\n\n```ts\nconst a = 1\nconst b = <b>2</b>'
      await page.route('**/v1/chat', (route) => {
        const turn = {
          role: 'assistant',
          text,
          usage: { inputTokens: 3, outputTokens: 9 },
          stopReason: 'length',
        }
        return route.fulfill({
          contentType: 'text/event-stream',
          body:
            `event: text\ndata: ${JSON.stringify({ text })}\n\n` +
            `event: done\ndata: ${JSON.stringify({ turn })}\n\n`,
        })
      })
      await ask(page, 'Cut me off')
      await finished(page)
      const answer = answers(page).first()
      await expect(answer.locator('ul > li').allTextContents()).resolves.toEqual(['one', 'two'])
      await expect(answer.locator('pre code').textContent()).resolves.toBe(
        'const a = 1\nconst b = <b>2</b>\n',
      )
      await expect(answer.locator('b').count()).resolves.toBe(0)
      await expect(answer.textContent()).resolves.not.toContain('```')
      await close(page)
    },
    TIMEOUT,
  )

  it(
    'shows raw HTML in an answer as text: no <img onerror>, <script> or javascript: link runs',
    async () => {
      const page = await openDemo()
      const attack =
        'Try <img src=x onerror="window.xss=1"> and <script>window.xss=2</script> ' +
        'and [a link](javascript:window.xss=3)'
      await ask(page, attack)
      await finished(page)
      const answer = answers(page).first()
      const text = (await answer.textContent()) ?? ''
      expect(text).toContain('<img src=x onerror="window.xss=1">')
      expect(text).toContain('<script>window.xss=2</script>')
      await expect(answer.locator('img, script, iframe, [onerror]').count()).resolves.toBe(0)
      await expect(page.locator('a[href^="javascript"]').count()).resolves.toBe(0)
      const link = answer.locator('a', { hasText: 'a link' })
      if ((await link.count()) > 0) await link.click()
      await expect(
        page.evaluate(() => (window as unknown as { xss?: unknown }).xss),
      ).resolves.toBeUndefined()
      await expect(page.locator('.message.user .bubble').textContent()).resolves.toBe(attack)
      await close(page)
    },
    TIMEOUT,
  )

  // On both sizes: the phone must show the Stop and Regenerate buttons where a tap reaches them.
  for (const [size, viewport] of SIZES) {
    it(
      `stops during thinking: the question stays, the answer shows as stopped, focus returns to the prompt (${size})`,
      async () => {
        const page = await openDemo(viewport)
        gate().hold()
        await ask(page, 'A markdown demo, please')
        const thought = await gate().sendUntil((sent) => sent.thinking.includes('The user wants'))
        await thinkingLive(page, thought.thinking)
        await page.click('[data-testid="stop"]')
        await page.locator('[data-testid="send"]').waitFor()
        await expect(focused(page)).resolves.toBe('prompt')
        await expect(page.locator('.message.user .bubble').textContent()).resolves.toBe(
          'A markdown demo, please',
        )
        const stopped = page.locator('.message.assistant')
        await expect(stopped.count()).resolves.toBe(1)
        await expect(stopped.getAttribute('data-status')).resolves.toBe('stopped')
        await expect(page.locator('[data-testid="stopped-note"]').isVisible()).resolves.toBe(true)
        await expect(stopped.locator('.badge').textContent()).resolves.toBe('stopped')
        await expect(answers(page).count()).resolves.toBe(0)
        await expect(page.locator('[data-testid="announcer"]').textContent()).resolves.toBe(
          'Answer stopped.',
        )
        // Still there after a reload, and Regenerate asks again.
        await page.reload()
        await page.locator('[data-testid="stopped-note"]').waitFor()
        gate().open()
        await page.click('[data-testid="regenerate"]')
        await expect(focused(page)).resolves.toBe('prompt')
        await answers(page).first().waitFor()
        await close(page)
      },
      TIMEOUT,
    )
  }

  for (const transport of TRANSPORTS) {
    it(
      `regenerate keeps the previous answer until the new one completes, and says so when a stop or a failure keeps it (${transport})`,
      async () => {
        const page = await openDemo(DESKTOP, transport)
        await ask(page, LONG_PROMPT)
        await finished(page)
        const old = (await answers(page).first().textContent()) ?? ''

        gate().hold()
        await page.click('[data-testid="regenerate"]')
        await expect(focused(page)).resolves.toBe('prompt')
        // While the new answer streams, the old one is still on screen, marked as previous.
        const fresh = await gate().sendUntil((sent) => sent.text.length > 20)
        await page.waitForFunction(
          ([text, streamed]) => {
            const previous = document.querySelector('[data-testid="previous-answer"]')
            const streaming = document.querySelector(
              '.message.assistant[data-status="streaming"] [data-testid="answer"]',
            )
            return (
              previous?.textContent?.includes(text) === true &&
              streaming?.textContent?.trim() === streamed
            )
          },
          [old, fresh.text.trim()] as const,
        )
        gate().open()
        await page.locator('[data-testid="send"]').waitFor()
        await expect(page.locator('[data-testid="previous-answer"]').count()).resolves.toBe(0)
        await expect(page.locator('.message.assistant').count()).resolves.toBe(1)
        await expect(answers(page).first().textContent()).resolves.toBe(old)
        // Both complete answers ended normally (what a stop cancels below may show as aborted).
        expect(callFailures(page)).toEqual([])

        // Stopped part-way, a regenerate changes nothing: the complete answer stays.
        gate().hold()
        await page.click('[data-testid="regenerate"]')
        const part = await gate().sendUntil((sent) => sent.text.length > 20)
        await page.waitForFunction(
          (streamed) =>
            document.querySelector('.answer.streaming')?.textContent?.trim() === streamed &&
            document.querySelector('[data-testid="previous-answer"]') !== null,
          part.text.trim(),
        )
        await page.keyboard.press('Escape')
        await page.locator('[data-testid="send"]').waitFor()
        await expect(focused(page)).resolves.toBe('prompt')
        const kept = page.locator('.message.assistant')
        await expect(kept.count()).resolves.toBe(1)
        await expect(kept.getAttribute('data-status')).resolves.toBe('done')
        await expect(answers(page).first().textContent()).resolves.toBe(old)
        await expect(page.locator('[data-testid="previous-answer"]').count()).resolves.toBe(0)
        // The page says why the answer is still the old one, and never that an answer completed.
        const note = page.locator('[data-testid="kept-note"]')
        const announcer = page.locator('[data-testid="announcer"]')
        await says(note, 'Stopped: the previous answer is kept.')
        await says(announcer, 'Stopped. The previous answer is kept.')

        // A regenerate that fails keeps it too, and says so. (The event ids come after every id
        // this page has seen: a seen id is skipped as replayed.)
        const failing =
          transport === 'stateless' ? '**/v1/chat' : '**/v1/conversations/*/regenerate'
        await page.route(failing, (route) =>
          route.fulfill({
            status: 200,
            contentType: 'text/event-stream',
            body:
              transport === 'stateless'
                ? 'event: error\ndata: {"kind":"server","message":"the model failed"}\n\n'
                : [
                    `id: 9000\nevent: turn\ndata: ${JSON.stringify({ turn: { role: 'user', content: LONG_PROMPT } })}\n\n`,
                    'id: 9001\nevent: error\ndata: {"kind":"server","message":"the model failed"}\n\n',
                  ].join(''),
          }),
        )
        await page.click('[data-testid="regenerate"]')
        await expect(page.locator('[data-testid="error"]').textContent()).resolves.toContain(
          'the model failed',
        )
        await expect(kept.count()).resolves.toBe(1)
        await expect(answers(page).first().textContent()).resolves.toBe(old)
        await says(note, 'The new answer failed: the previous answer is kept.')
        await says(announcer, 'The new answer failed. The previous answer is kept.')
        await close(page)
      },
      TIMEOUT,
    )
  }

  // On a phone too: the error banner's Retry and Dismiss must be where a tap reaches them.
  for (const [size, viewport, transport] of [
    ['desktop', DESKTOP, 'durable'],
    ['desktop', DESKTOP, 'stateless'],
    ['phone', PHONE, 'durable'],
  ] as const) {
    it(
      `keeps the question after an error: Retry sends it again, Dismiss puts it back in the prompt (${size}, ${transport})`,
      async () => {
        const page = await openDemo(viewport, transport)
        let calls = 0
        let failures = 2
        // The model call's request, refused as an overloaded relay refuses it.
        const calling = transport === 'stateless' ? '**/v1/chat' : '**/v1/conversations/*/messages'
        await page.route(calling, async (route) => {
          calls++
          if (failures > 0) {
            failures--
            await route.fulfill({
              status: 503,
              contentType: 'application/json',
              body: JSON.stringify({
                error: { kind: 'overloaded', message: 'the model is busy' },
              }),
            })
          } else await route.continue()
        })
        await ask(page, 'Are you there?')
        const banner = page.locator('[data-testid="error"]')
        await banner.waitFor()
        await expect(banner.textContent()).resolves.toContain('the model is busy')
        await expect(banner.getAttribute('role')).resolves.toBe('alert')
        await expect(page.locator('[data-testid="user-message"]').count()).resolves.toBe(1)

        // A retry that fails too keeps the question; the next one answers it.
        await page.click('[data-testid="retry"]')
        await expect.poll(() => calls).toBe(2)
        await banner.waitFor()
        await expect(page.locator('.message.user .bubble').textContent()).resolves.toBe(
          'Are you there?',
        )
        await page.click('[data-testid="retry"]')
        await expect(focused(page)).resolves.toBe('prompt')
        await finished(page)
        await expect(banner.count()).resolves.toBe(0)
        await expect(answers(page).first().textContent()).resolves.toContain('"Are you there?"')
        await expect(page.locator('[data-testid="user-message"]').count()).resolves.toBe(1)
        expect(calls).toBe(3)

        failures = 1
        await ask(page, 'Still there?')
        await banner.waitFor()
        await page.getByRole('button', { name: 'Dismiss' }).click()
        await expect(banner.count()).resolves.toBe(0)
        await expect(page.inputValue(PROMPT)).resolves.toBe('Still there?')
        await expect(focused(page)).resolves.toBe('prompt')
        await expect(page.locator('[data-testid="user-message"]').count()).resolves.toBe(1)

        if (transport === 'durable') {
          // An answer that fails after the relay took the question: the question stays, and
          // dismissing the error says the answer failed (it was not stopped). The event ids come
          // after every id this page has seen (a seen id is skipped as replayed).
          await page.unroute(calling)
          await page.route(calling, (route) =>
            route.fulfill({
              status: 200,
              contentType: 'text/event-stream',
              body: [
                'id: 9000\nevent: turn\ndata: {"turn":{"role":"user","content":"Still there?"}}\n\n',
                'id: 9001\nevent: error\ndata: {"kind":"server","message":"the model failed"}\n\n',
              ].join(''),
            }),
          )
          await ask(page, 'Still there?')
          await banner.waitFor()
          await expect(banner.textContent()).resolves.toContain('the model failed')
          await page.getByRole('button', { name: 'Dismiss' }).click()
          await expect(banner.count()).resolves.toBe(0)
          await expect(page.inputValue(PROMPT)).resolves.toBe('')
          await expect(page.locator('[data-testid="user-message"]').count()).resolves.toBe(2)
          await expect(page.locator('[data-testid="stopped-note"]').textContent()).resolves.toBe(
            'The answer failed. Regenerate to ask again.',
          )
        }
        await close(page)
      },
      TIMEOUT,
    )
  }

  it(
    'New chat puts the conversation aside in localStorage, and it comes back from the list after a reload (stateless)',
    async () => {
      const page = await openDemo(DESKTOP, 'stateless')
      await ask(page, 'Keep this one')
      await finished(page)
      const answer = await answers(page).first().textContent()
      await page.click('[data-testid="new-chat"]')
      await expect(focused(page)).resolves.toBe('prompt')
      await expect(page.locator('.message').count()).resolves.toBe(0)
      await page.reload()
      const previous = page.locator('[data-testid="previous-chat"]')
      await expect(previous.count()).resolves.toBe(1)
      await expect(previous.textContent()).resolves.toContain('Keep this one')
      await previous.click()
      await expect(focused(page)).resolves.toBe('prompt')
      await expect(page.locator('.message.user .bubble').textContent()).resolves.toBe(
        'Keep this one',
      )
      await expect(answers(page).first().textContent()).resolves.toBe(answer)
      await expect(previous.count()).resolves.toBe(0)
      await close(page)
    },
    TIMEOUT,
  )

  it(
    'keeps a question whose answer a reload cut off, shows it as interrupted, and Retry asks it again (stateless)',
    async () => {
      const page = await openDemo(DESKTOP, 'stateless')
      gate().hold()
      await ask(page, LONG_PROMPT)
      const part = await gate().sendUntil((sent) => sent.text.length > 20)
      await showing(page, part.text)
      await page.reload()
      const note = page.locator('[data-testid="interrupted-note"]')
      await expect(note.textContent()).resolves.toContain('Interrupted')
      await expect(page.locator('.message.user .bubble').textContent()).resolves.toBe(LONG_PROMPT)
      await expect(page.locator('.message.assistant').getAttribute('data-status')).resolves.toBe(
        'interrupted',
      )
      // Kept until it is asked again: one more reload changes nothing.
      await page.reload()
      await note.waitFor()
      gate().open()
      await page.getByRole('button', { name: 'Retry' }).click()
      await expect(focused(page)).resolves.toBe('prompt')
      await finished(page)
      await expect(note.count()).resolves.toBe(0)
      await expect(page.locator('[data-testid="user-message"]').count()).resolves.toBe(1)
      await expect(answers(page).first().textContent()).resolves.toContain(LONG_PROMPT.slice(0, 40))
      await page.reload()
      await finished(page)
      await expect(page.locator('[data-testid="user-message"]').count()).resolves.toBe(1)
      await expect(note.count()).resolves.toBe(0)
      await close(page)
    },
    TIMEOUT,
  )

  it(
    'tells a screen reader who spoke, keeps the usage line out of the answer, and announces completion only',
    async () => {
      const page = await openDemo()
      gate().hold()
      await ask(page, 'Who is speaking?')
      const part = await gate().sendUntil((sent) => sent.text.length > 10)
      await showing(page, part.text)
      // While tokens arrive, no live region holds the answer.
      const live = await page.evaluate(() =>
        [
          ...document.querySelectorAll(
            '[aria-live], [role="status"], [role="alert"], [role="log"]',
          ),
        ].map((e) => e.textContent ?? ''),
      )
      expect(live.join('')).not.toContain('You said')
      await expect(page.locator('[data-testid="announcer"]').textContent()).resolves.toBe('')
      gate().open()
      await finished(page)
      await expect(page.locator('[data-testid="announcer"]').textContent()).resolves.toBe(
        'Answer complete.',
      )
      await expect(page.locator('[data-testid="announcer"]').getAttribute('role')).resolves.toBe(
        'status',
      )
      const user = await page.locator('.message.user').ariaSnapshot()
      expect(user).toContain('heading "You said"')
      const assistant = await page.locator('.message.assistant').ariaSnapshot()
      expect(assistant).toContain('heading "The model said"')
      expect(assistant).toContain('You said: \\"Who is speaking?\\"')
      expect(assistant).not.toMatch(/first token|\d+ in · \d+ out/)
      await close(page)
    },
    TIMEOUT,
  )

  it(
    'fits a phone: a 16 px prompt, 40 px touch targets, visible labels, and an opaque header',
    async () => {
      const page = await openDemo(PHONE)
      // The tour: its wide code block and table must scroll inside the answer, not the page.
      await ask(page, 'Show me a markdown demo on my phone.')
      await finished(page)
      const layout = await page.evaluate(() => {
        const visible = (e: Element) => {
          const r = e.getBoundingClientRect()
          return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'
        }
        const targets = [...document.querySelectorAll('button, select, summary, input, textarea')]
          .filter(visible)
          .map((e) => {
            const r = e.getBoundingClientRect()
            return { name: e.textContent?.trim() || e.tagName, width: r.width, height: r.height }
          })
        const labels = [...document.querySelectorAll('.controls label > span')].map((e) => {
          const r = e.getBoundingClientRect()
          return { text: e.textContent, width: r.width, height: r.height }
        })
        const prompt = document.querySelector('[data-testid="prompt"]')
        return {
          overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          promptFont: prompt === null ? 0 : parseFloat(getComputedStyle(prompt).fontSize),
          targets,
          labels,
        }
      })
      expect(layout.overflow).toBeLessThanOrEqual(0)
      expect(layout.promptFont).toBeGreaterThanOrEqual(16)
      expect(layout.targets.length).toBeGreaterThan(4)
      for (const target of layout.targets) {
        expect(target, target.name).toMatchObject({
          width: expect.toSatisfy((w: number) => w >= 40),
          height: expect.toSatisfy((h: number) => h >= 40),
        })
      }
      expect(layout.labels.map((l) => l.text)).toEqual(['Model', 'Thinking'])
      for (const label of layout.labels) {
        expect(label.width).toBeGreaterThan(10)
        expect(label.height).toBeGreaterThan(8)
      }

      // Scrolled so that the answer runs under the header: every point of the header is the
      // header's own, on an opaque background.
      await page.evaluate(() => window.scrollTo({ top: 400 }))
      await page.waitForFunction(() => window.scrollY > 0)
      const header = await page.evaluate(() => {
        const top = document.querySelector('header.top')!
        const r = top.getBoundingClientRect()
        const points: boolean[] = []
        for (let x = 5; x < r.width; x += 40) {
          for (let y = 2; y < r.height; y += 10) {
            points.push(top.contains(document.elementFromPoint(x, y)))
          }
        }
        return { top: r.top, background: getComputedStyle(top).backgroundColor, points }
      })
      expect(header.top).toBe(0)
      expect(header.points.every(Boolean)).toBe(true)
      expect(header.background).toMatch(/^rgb\(/)
      await close(page)
    },
    TIMEOUT,
  )

  it(
    'offers only the thinking levels a model takes, and shows warnings muted, once, folded (stateless)',
    async () => {
      const page = await openPage(demo.browser, demo.worker, {
        path: '/?transport=stateless',
        gate: demo.gate,
      })
      const effort = (levels: string[], canDisable: boolean) => ({
        mode: 'effort',
        levels,
        canDisable,
      })
      await page.route('**/v1/models', (route) =>
        route.fulfill({
          contentType: 'application/json',
          body: JSON.stringify({
            models: [
              { id: 'mock/echo', thinking: effort(['low', 'medium', 'high'], true) },
              { id: 'mock/plain', thinking: { mode: 'none' } },
              {
                id: 'mock/budget',
                thinking: { mode: 'budget', min: 1024, max: 8000, canDisable: false },
              },
              { id: 'mock/deep', thinking: effort(['low', 'high', 'xhigh', 'max'], false) },
            ],
          }),
        }),
      )
      const bodies: Record<string, unknown>[] = []
      await page.route('**/v1/chat', (route) => {
        bodies.push(route.request().postDataJSON() as Record<string, unknown>)
        const turn = {
          role: 'assistant',
          text: 'Noted.',
          usage: { inputTokens: 3, outputTokens: 2 },
          stopReason: 'stop',
          warnings: [
            'thinking is not supported by this model',
            'thinking is not supported by this model',
          ],
        }
        return route.fulfill({
          contentType: 'text/event-stream',
          body:
            `event: text\ndata: ${JSON.stringify({ text: 'Noted.' })}\n\n` +
            `event: done\ndata: ${JSON.stringify({ turn })}\n\n`,
        })
      })
      await page.reload()
      await page.locator('[data-testid="model"] option[value="mock/deep"]').waitFor({
        state: 'attached',
      })
      const levels = () => page.locator('[data-testid="thinking-level"] option').allTextContents()
      await page.selectOption('[data-testid="model"]', 'mock/echo')
      await expect(levels()).resolves.toEqual(['off', 'low', 'medium', 'high'])
      await page.selectOption('[data-testid="model"]', 'mock/budget')
      await expect(levels()).resolves.toEqual(['low', 'medium', 'high'])
      await page.selectOption('[data-testid="model"]', 'mock/deep')
      await expect(levels()).resolves.toEqual(['low', 'high', 'max'])
      await page.selectOption('[data-testid="thinking-level"]', 'max')
      await page.selectOption('[data-testid="model"]', 'mock/plain')
      await expect(page.locator('[data-testid="thinking-level"]').count()).resolves.toBe(0)

      await ask(page, 'No thinking here')
      await finished(page)
      await page.selectOption('[data-testid="model"]', 'mock/deep')
      await expect(page.inputValue('[data-testid="thinking-level"]')).resolves.toBe('max')
      await ask(page, 'Think hard')
      await finished(page, 1)
      expect(bodies.map((b) => [b['model'], b['thinking']])).toEqual([
        ['mock/plain', undefined],
        ['mock/deep', 'max'],
      ])

      // One folded, muted note per answer, however often the relay repeats it; no alert.
      const notes = page.locator('[data-testid="warnings"]')
      await expect(notes.count()).resolves.toBe(2)
      await expect(notes.first().evaluate((e) => (e as HTMLDetailsElement).open)).resolves.toBe(
        false,
      )
      await expect(notes.first().locator('summary').textContent()).resolves.toBe(
        '1 note from the relay',
      )
      await notes.first().locator('summary').click()
      await expect(notes.first().locator('li').allTextContents()).resolves.toEqual([
        'thinking is not supported by this model',
      ])
      const colors = await page.evaluate(() => ({
        note: getComputedStyle(document.querySelector('[data-testid="warnings"]')!).color,
        muted: getComputedStyle(document.querySelector('.meta')!).color,
      }))
      expect(colors.note).toBe(colors.muted)
      await expect(page.locator('[role="alert"]').count()).resolves.toBe(0)
      await close(page)
    },
    TIMEOUT,
  )
}
