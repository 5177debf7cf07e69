import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import {
  answers,
  ask,
  close,
  conversationOf,
  finished,
  focused,
  lanes,
  LONG_PROMPT,
  openDemo as openDemoPage,
  PROMPT,
  trimmed,
} from './demo-page.ts'
import { link, type DemoPage, type DemoServer, type Worker } from './harness.ts'

// The demo's default transport, a durable conversation (one Durable Object each), in Chromium:
// what a reload, a second tab, a stop from elsewhere and a dropped network do to an answer in
// flight; versions (regenerate, edit, the pager), the queue, and titles. The mock model sends each delta only when the test lets it go (see
// `test/helpers/gate.ts`): an answer is in flight, exactly as far as the test allowed, for as long
// as the test needs.
const TIMEOUT = 90_000
/**
 * The end of the mock's answer to {@link LONG_PROMPT} (thinking, then a quote of it in some 30
 * deltas of plain text, which the page shows as sent): the answer is complete.
 */
const ANSWER_END = "I am thinkwire's offline mock model, so this answer is scripted."

/** The server of {@link durableDemoTests}' suite, set as it is registered. */
let demo: DemoServer
const gate = () => demo.gate

/**
 * The demo's tests of durable conversations, on the gated Worker and Chromium of `server` (see
 * `browser.test.ts`).
 */
export function durableDemoTests(server: DemoServer): void {
  demo = server
  describe('the demo on durable conversations, in Chromium', () => {
    beforeEach(closeOpened)
    afterAll(closeOpened)
    suite()
  })
}

/**
 * Pages of the last test, closed before the next one whatever happened, so that a failed test
 * leaves no stream open (and its failure screenshot is still taken).
 */
const opened: DemoPage[] = []

async function closeOpened(): Promise<void> {
  await Promise.all(opened.splice(0).map((page) => close(page).catch(() => {})))
}

async function openDemo(path = '/', worker?: Worker): Promise<DemoPage> {
  const page = await openDemoPage(demo, { path, worker })
  opened.push(page)
  return page
}

/** Waits until the page shows the answer in flight as exactly `text` (what the gate sent of it). */
async function streaming(page: DemoPage, text: string): Promise<void> {
  await page.waitForFunction(
    (sent) => (document.querySelector('.answer.streaming')?.textContent ?? '').trim() === sent,
    text.trim(),
  )
}

/**
 * Asks {@link LONG_PROMPT} on `page` with the gate held, lets the answer go until more than 20
 * characters of its text are sent, and waits until the page shows them: the answer is in flight,
 * and stays there until the test lets it go on. Returns the conversation's id and the text sent.
 */
async function inFlight(page: DemoPage): Promise<{ id: string; text: string }> {
  gate().hold()
  await ask(page, LONG_PROMPT)
  const { text } = await gate().sendUntil((sent) => sent.text.length > 20)
  await streaming(page, text)
  const id = conversationOf(page)
  expect(id).toBeDefined()
  return { id: id!, text }
}

/**
 * The names of the events the relay keeps for a conversation, read from the server (not the
 * page) once no answer is in flight: those of its last answer (the log is trimmed when an answer
 * ends), so, for a conversation of one answer, every event. Each model call the conversation's
 * object makes is announced by exactly one `turn` event before the model is called, and ends with
 * one `done` or `error`: counting them counts model calls.
 */
async function eventLog(id: string): Promise<string[]> {
  const response = await fetch(`${demo.worker.base}/v1/conversations/${id}/stream`, {
    headers: { 'last-event-id': '0' },
  })
  expect(response.status).toBe(200)
  const text = await response.text()
  return [...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1]!)
}

/** The conversation as the relay stores it. */
async function stored(id: string): Promise<{
  streaming: boolean
  conversation: {
    turns: {
      role: string
      text?: string
      content?: unknown
      stopReason?: string
      branch?: { index: number; count: number }
    }[]
  }
}> {
  const response = await fetch(`${demo.worker.base}/v1/conversations/${id}`)
  expect(response.status).toBe(200)
  return (await response.json()) as Awaited<ReturnType<typeof stored>>
}

/** Resolves with the relay's answer to the page's `GET /v1/conversations/:id` (what it loaded). */
function loaded(page: DemoPage, id: string): Promise<{ streaming: boolean }> {
  return page
    .waitForResponse(
      (response) =>
        new URL(response.url()).pathname === `/v1/conversations/${id}` &&
        response.request().method() === 'GET',
    )
    .then((response) => response.json() as Promise<{ streaming: boolean }>)
}

/** Records the page's SSE follow streams (`GET .../stream?follow=true`), from now on. */
function recordFollows(page: DemoPage): () => string[] {
  const follows: string[] = []
  page.on('request', (request) => {
    const url = new URL(request.url())
    if (url.pathname.endsWith('/stream') && url.searchParams.get('follow') === 'true') {
      follows.push(request.url())
    }
  })
  return () => follows
}

/** What the pager under the first answer (or under `scope`) says to a screen reader. */
const version = (page: DemoPage, scope = '.message.assistant') =>
  page.locator(`${scope} [data-testid="version"]`).first().textContent()

/** The texts of the page's questions, in order (queued ones are not among them). */
const questions = (page: DemoPage) => page.locator('.message.user .bubble').allTextContents()

/** Counts the page's requests that start a model call (a message or a regenerate). */
function countCalls(page: DemoPage): () => number {
  let calls = 0
  page.on('request', (request) => {
    if (/\/(messages|regenerate)$/.test(new URL(request.url()).pathname)) calls++
  })
  return () => calls
}

function suite(): void {
  it(
    'keeps streaming to the full answer across a reload mid-answer, with one model call',
    async () => {
      const page = await openDemo()
      const calls = countCalls(page)
      const { id, text } = await inFlight(page)

      const load = loaded(page, id)
      await page.reload()
      // The relay still had the answer in flight when the reloaded page loaded the conversation.
      await expect(load).resolves.toMatchObject({ streaming: true })
      // The reloaded page shows what was sent before, then follows the answer live.
      await streaming(page, text)
      const more = await gate().sendUntil((sent) => sent.text.length > text.length + 40)
      await streaming(page, more.text)
      gate().open()
      await finished(page)
      expect(page.url()).toContain(`c=${id}`)
      await expect(answers(page).first().textContent()).resolves.toContain(ANSWER_END)
      await expect(
        page.locator('.message.assistant').first().getAttribute('data-status'),
      ).resolves.toBe('done')

      // On the server: the whole answer stored once, from one model call.
      const { conversation } = await stored(id)
      expect(conversation.turns.map((t) => t.role)).toEqual(['user', 'assistant'])
      expect(conversation.turns[1]).toMatchObject({ stopReason: 'stop' })
      expect(conversation.turns[1]?.text?.endsWith(ANSWER_END)).toBe(true)
      const log = await eventLog(id)
      expect(log.filter((name) => name === 'turn')).toHaveLength(1)
      expect(log.filter((name) => name === 'done' || name === 'error')).toEqual(['done'])
      // Neither the page before the reload nor after it asked twice.
      expect(calls()).toBe(1)

      // What the reloaded page shows is what a page opened afterwards shows.
      const later = await openDemo(`/?c=${id}`)
      await finished(later)
      await expect(answers(later).first().textContent()).resolves.toBe(
        await answers(page).first().textContent(),
      )
      await close(later)
      await close(page)
    },
    TIMEOUT,
  )

  it(
    'shows the same live answer in a second tab, and a message sent in either appears in both',
    async () => {
      const first = await openDemo()
      const follows = recordFollows(first)
      const { id, text } = await inFlight(first)

      const second = await openDemo(`/?c=${id}`)
      // The second tab joins the answer while it streams, and both follow it live.
      await streaming(second, text)
      const more = await gate().sendUntil((sent) => sent.text.length > text.length + 40)
      await Promise.all([streaming(first, more.text), streaming(second, more.text)])
      gate().open()
      await finished(first)
      await finished(second)
      const answer = await answers(first).first().textContent()
      expect(answer).toContain(ANSWER_END)
      await expect(answers(second).first().textContent()).resolves.toBe(answer)

      // The second tab asks; the first, idle, follows it without a reload.
      await ask(second, 'Hello from the second tab')
      await finished(first, 1)
      await expect(first.locator('.message.user .bubble').nth(1).textContent()).resolves.toBe(
        'Hello from the second tab',
      )
      await expect(answers(first).nth(1).textContent()).resolves.toContain(
        '"Hello from the second tab"',
      )
      await finished(second, 1)
      await expect(answers(second).nth(1).textContent()).resolves.toBe(
        await answers(first).nth(1).textContent(),
      )
      // Each tab followed over a WebSocket (the first from its first send, which made the
      // conversation; the second from its load), the first with no SSE follow stream, which would
      // keep the relay awake.
      for (const page of [first, second]) {
        expect(page.sockets.map((url) => new URL(url).pathname)).toContain(
          `/v1/conversations/${id}/socket`,
        )
      }
      expect(follows()).toEqual([])
      // Two questions, two answers: one model call each.
      const { conversation } = await stored(id)
      expect(conversation.turns.map((turn) => turn.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
      ])
      await close(second)
      await close(first)
    },
    TIMEOUT,
  )

  it(
    'stops the answer in every tab when one tab stops it',
    async () => {
      const first = await openDemo()
      const { id, text } = await inFlight(first)
      const second = await openDemo(`/?c=${id}`)
      // The second tab attached to the answer in flight: it can stop it.
      await streaming(second, text)
      await second.click('[data-testid="stop"]')
      await expect(focused(second)).resolves.toBe('prompt')

      for (const page of [first, second]) {
        await page.locator('[data-testid="send"]').waitFor()
        await expect(
          page.locator('.message.assistant').first().getAttribute('data-status'),
        ).resolves.toBe('stopped')
        await expect(page.locator('[data-testid="announcer"]').textContent()).resolves.toBe(
          'Answer stopped.',
        )
      }
      // The relay stored what was sent, and both show it.
      const { conversation } = await stored(id)
      expect(conversation.turns[1]).toMatchObject({ role: 'assistant', stopReason: 'aborted' })
      expect(conversation.turns[1]?.text?.trim()).toBe(text.trim())
      await expect(trimmed(answers(first).first())).resolves.toBe(text.trim())
      await expect(trimmed(answers(second).first())).resolves.toBe(text.trim())
      const log = await eventLog(id)
      expect(log.filter((name) => name === 'turn')).toHaveLength(1)
      expect(log.filter((name) => name === 'done' || name === 'error')).toEqual(['done'])
      await close(second)
      await close(first)
    },
    TIMEOUT,
  )

  it(
    'never stops the answer of another tab with a Send pressed as that answer arrives',
    async () => {
      const first = await openDemo()
      await ask(first, 'Hello')
      await finished(first)
      const id = conversationOf(first)!
      const second = await openDemo(`/?c=${id}`)
      await finished(second)
      // The second tab's Send is pressed, and the first tab's question arrives before it is let go.
      await second.fill(PROMPT, 'A question of my own')
      const send = await second.locator('[data-testid="send"]').boundingBox()
      await second.mouse.move(send!.x + send!.width / 2, send!.y + send!.height / 2)
      await second.mouse.down()
      gate().hold()
      await ask(first, LONG_PROMPT)
      await second.locator('[data-testid="stop"]').waitFor()
      await second.mouse.up()
      // The first tab's answer goes on; the second tab still has its question to send.
      const { text } = await gate().sendUntil((sent) => sent.text.length > 20)
      await streaming(first, text)
      await streaming(second, text)
      await expect(second.inputValue(PROMPT)).resolves.toBe('A question of my own')
      gate().open()
      await finished(first, 1)
      const { conversation } = await stored(id)
      expect(conversation.turns).toHaveLength(4)
      expect(conversation.turns[3]).toMatchObject({ role: 'assistant', stopReason: 'stop' })
    },
    TIMEOUT,
  )

  it(
    'keeps exactly what the stopping tab showed, though the answer went on until the stop arrived, and every tab gets it',
    async () => {
      const first = await openDemo()
      const { id, text } = await inFlight(first)
      const second = await openDemo(`/?c=${id}`)
      await streaming(second, text)
      // The stop takes its time to reach the relay: the answer streams on meanwhile, and the other
      // tab shows more than the stopping one kept.
      await first.route('**/stop*', async (route) => {
        const more = await gate().sendUntil((sent) => sent.text.length > text.length)
        await streaming(second, more.text)
        await route.continue()
      })
      const shown = await first.evaluate(async () => {
        document.querySelector<HTMLButtonElement>('[data-testid="stop"]')!.click()
        await new Promise((frame) => requestAnimationFrame(frame))
        return document.querySelector('[data-testid="answer"]')!.textContent!
      })
      expect(shown.trim()).toBe(text.trim())

      for (const page of [first, second]) {
        await page.locator('[data-testid="send"]').waitFor()
        await expect(
          page.locator('.message.assistant').first().getAttribute('data-status'),
        ).resolves.toBe('stopped')
        await expect(answers(page).first().textContent()).resolves.toBe(shown)
      }
      const { conversation } = await stored(id)
      expect(conversation.turns[1]).toMatchObject({ stopReason: 'aborted' })
      expect(conversation.turns[1]?.text?.trim()).toBe(shown.trim())
      // The relay did send more than was kept (to the other tab, and to the log).
      const log = await fetch(`${demo.worker.base}/v1/conversations/${id}/stream`, {
        headers: { 'last-event-id': '0' },
      })
      const logged = [...(await log.text()).matchAll(/^event: text\ndata: (.+)$/gm)]
        .map((match) => (JSON.parse(match[1]!) as { text: string }).text)
        .join('')
      expect(logged.length).toBeGreaterThan(shown.trim().length)
    },
    TIMEOUT,
  )

  it(
    'says how long the answer thought in a second tab, after a reload mid-answer, and in a tab opened later',
    async () => {
      const first = await openDemo()
      const { id, text } = await inFlight(first)
      // A tab that joins mid-answer, and the first one reloaded mid-answer: neither saw it start.
      const second = await openDemo(`/?c=${id}`)
      await streaming(second, text)
      await first.reload()
      await streaming(first, text)
      gate().open()
      await finished(first)
      await finished(second)
      const label = await lanes(first).first().textContent()
      expect(label).toMatch(/^Thought for \d+(\.\d)? s$/)
      await expect(lanes(second).first().textContent()).resolves.toBe(label)
      // Given back first, the second tab's page opens the later one, reset as a new profile: a
      // third page at once would cost Chromium a new context (a second of CPU), for this test only.
      await close(second)
      const later = await openDemo(`/?c=${id}`)
      await finished(later)
      await expect(lanes(later).first().textContent()).resolves.toBe(label)
    },
    TIMEOUT,
  )

  it(
    'runs an answer the runtime died in again once the relay is back, and shows it whole',
    async () => {
      // A Worker of its own, on a state folder that outlives it, behind a link that follows the
      // Worker started in its place: to the page, the relay went away and came back.
      const state = mkdtempSync(join(tmpdir(), 'thinkwire-e2e-killed-'))
      let worker = await demo.startAnother(state)
      const cable = await link(worker)
      try {
        const page = await openDemo('/', { ...worker, base: cable.base })
        const { id } = await inFlight(page)
        // kill -9 mid-answer: every stream ends at once, nothing is flushed or said.
        await worker.kill()
        await page.getByTestId('reconnecting').waitFor()
        worker = await demo.startAnother(state)
        cable.to(worker)
        // Back, the relay finds the answer cut with none of it stored and runs it again, once (its
        // stream says `interrupted`): the page follows the new answer to its end.
        await expect.poll(() => page.getByTestId('reconnecting').count()).toBe(0)
        gate().open()
        await finished(page)
        await expect(answers(page).first().textContent()).resolves.toContain(ANSWER_END)
        await expect(page.getByTestId('error').count()).resolves.toBe(0)
        // As the relay holds it: the question and the whole answer, no error.
        const held = (await (await fetch(`${cable.base}/v1/conversations/${id}`)).json()) as {
          conversation: { turns: unknown[] }
          lastError?: unknown
          streaming: boolean
        }
        expect(held.conversation.turns).toHaveLength(2)
        expect(held.lastError).toBeUndefined()
        expect(held.streaming).toBe(false)
      } finally {
        await closeOpened()
        await worker.stop()
        await cable.close()
        rmSync(state, { recursive: true, force: true })
      }
    },
    TIMEOUT,
  )

  it(
    'resumes an answer from the last event it saw when the network comes back',
    async () => {
      // The page talks to the Worker through a link the test cuts while the page is offline.
      const cable = await link(demo.worker)
      const page = await openDemo('/', { ...demo.worker, base: cable.base })
      const { id, text } = await inFlight(page)
      const resumedFrom: number[] = []
      page.on('request', (request) => {
        const url = new URL(request.url())
        // The last event seen, as the header or as the query the relay reads as the header.
        const lastEventId =
          request.headers()['last-event-id'] ?? url.searchParams.get('lastEventId') ?? undefined
        if (url.pathname === `/v1/conversations/${id}/stream` && lastEventId !== undefined) {
          resumedFrom.push(Number(lastEventId))
        }
      })
      // A page that follows the conversation resumes it on its follower's socket.
      page.on('websocket', (socket) => {
        const url = new URL(socket.url())
        const lastEventId = url.searchParams.get('lastEventId')
        if (url.pathname === `/v1/conversations/${id}/socket` && lastEventId !== null) {
          resumedFrom.push(Number(lastEventId))
        }
      })
      await page.context().setOffline(true)
      cable.cut()
      // The answer's stream was cut.
      await expect
        .poll(
          () => page.failedRequests.some((failed) => failed.includes(`/conversations/${id}/`)),
          {
            timeout: 45_000,
          },
        )
        .toBe(true)
      // The page says it is reconnecting, not that the answer failed.
      const reconnecting = page.getByTestId('reconnecting')
      await reconnecting.waitFor()
      await expect(reconnecting.textContent()).resolves.toContain('reconnecting')
      // The answer goes on while the page is offline.
      const missed = await gate().sendUntil((sent) => sent.text.length > text.length + 40)
      cable.mend()
      await page.context().setOffline(false)
      // Back online, it catches up, then follows the rest live, and says no more.
      await streaming(page, missed.text)
      await reconnecting.waitFor({ state: 'detached' })
      gate().open()

      await finished(page)
      await expect(answers(page).first().textContent()).resolves.toContain(ANSWER_END)
      // It asked for what came after the last event it had, not for the answer again.
      expect(resumedFrom.length).toBeGreaterThan(0)
      expect(resumedFrom.every((after) => after > 1)).toBe(true)
      const log = await eventLog(id)
      expect(log.filter((name) => name === 'turn')).toHaveLength(1)
      await expect(page.locator('[data-testid="error"]').count()).resolves.toBe(0)
      await close(page)
      await cable.close()
    },
    TIMEOUT,
  )

  it(
    'loads a conversation it could not reach on a reload once the network is back, and drops the error',
    async () => {
      const page = await openDemo()
      await ask(page, 'Remember me')
      await finished(page)
      const id = conversationOf(page)!
      const answer = await answers(page).first().textContent()

      // Reloaded while the conversation cannot be reached: its loads fail as fetch does offline.
      let offline = true
      await page.route(`**/v1/conversations/${id}`, (route) =>
        offline ? route.abort('internetdisconnected') : route.continue(),
      )
      await page.reload()
      const error = page.locator('[data-testid="error"]')
      await error.waitFor()
      offline = false
      await page.evaluate(() => window.dispatchEvent(new Event('online')))
      await error.waitFor({ state: 'detached' })
      await expect(page.locator('.message.user .bubble').textContent()).resolves.toBe('Remember me')
      await expect(answers(page).first().textContent()).resolves.toBe(answer)
      await close(page)
    },
    TIMEOUT,
  )

  it(
    'starts a new chat without deleting the last one, which the list from the relay opens again',
    async () => {
      const page = await openDemo()
      // Every page of this file is the same client: this chat's title is its own.
      const title = `Keep this one (${Date.now().toString(36)})`
      await ask(page, title)
      await finished(page)
      const id = conversationOf(page)!
      const answer = await answers(page).first().textContent()

      await page.click('[data-testid="new-chat"]')
      await expect(focused(page)).resolves.toBe('prompt')
      await expect(page.locator('.message').count()).resolves.toBe(0)
      expect(conversationOf(page)).toBeUndefined()
      const listed = page.locator('[data-testid="previous-chat"]', { hasText: title })
      await listed.waitFor()

      // After a reload on the new chat's address, the list still has it: nothing was deleted.
      await page.reload()
      await listed.waitFor()
      await listed.click()
      await expect(focused(page)).resolves.toBe('prompt')
      expect(conversationOf(page)).toBe(id)
      await expect(page.locator('.message.user .bubble').textContent()).resolves.toBe(title)
      await expect(answers(page).first().textContent()).resolves.toBe(answer)

      // The next message goes on in that conversation.
      await ask(page, LONG_PROMPT.slice(0, 40))
      await finished(page, 1)
      expect(conversationOf(page)).toBe(id)
      const { conversation } = await stored(id)
      expect(conversation.turns).toHaveLength(4)

      // Back goes to the new chat it came from.
      await page.goBack()
      await expect.poll(() => page.locator('.message').count()).toBe(0)
      await close(page)
    },
    TIMEOUT,
  )
  it(
    'shows a save_note approval in every tab and after a reload; one tab approves it for both',
    async () => {
      gate().open()
      const first = await openDemo()
      await first.check('[data-testid="server-tools"]')
      await ask(first, 'save_note: buy milk')
      const card = (page: DemoPage) => page.getByRole('region', { name: /save_note/ })
      await card(first).waitFor()
      await expect(trimmed(card(first).getByTestId('approval-input'))).resolves.toContain('"text"')
      // The card takes focus when it appears: Tab reaches its Approve button.
      await expect(focused(first)).resolves.toBe('approval')
      const id = conversationOf(first)!

      const second = await openDemo(`/?c=${id}`)
      await card(second).waitFor()
      // The relay keeps it: a reload while it waits shows it again.
      await first.reload()
      await card(first).waitFor()

      await card(second).getByRole('button', { name: 'Approve' }).click()
      for (const page of [first, second]) {
        await page.locator('[data-testid="approval"]').waitFor({ state: 'detached' })
        await answers(page).filter({ hasText: 'saved: ' }).waitFor()
      }
      await expect(focused(second)).resolves.toBe('prompt')
      const { conversation } = await stored(id)
      expect(conversation.turns.map((turn) => turn.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
      ])
      await close(second)
      await close(first)
    },
    TIMEOUT,
  )

  it(
    'keeps each regenerated answer a version away, and pages back to the first with the keyboard',
    async () => {
      gate().open()
      const page = await openDemo()
      await ask(page, LONG_PROMPT)
      await finished(page)
      const id = conversationOf(page)!
      const first = await answers(page).first().textContent()

      // Regenerated, and stopped part-way: the answer stays, the stopped one a version away.
      gate().hold()
      await page.click('[data-testid="regenerate"]')
      const part = await gate().sendUntil((sent) => sent.text.length > 20)
      await streaming(page, part.text)
      await page.click('[data-testid="stop"]')
      await page.locator('[data-testid="send"]').waitFor()
      await expect.poll(() => version(page)).toBe('Version 1 of 2')
      await expect(answers(page).first().textContent()).resolves.toBe(first)

      // Regenerated to the end: the new answer is the last version.
      gate().open()
      await page.click('[data-testid="regenerate"]')
      await expect.poll(() => version(page)).toBe('Version 3 of 3')
      await finished(page)
      await expect(page.locator('.message.assistant').count()).resolves.toBe(1)

      // Back, with the keyboard: the stopped version, then the first.
      const previous = page.getByRole('button', { name: 'Previous version' })
      await previous.focus()
      await page.keyboard.press('Enter')
      await expect.poll(() => version(page)).toBe('Version 2 of 3')
      await expect(trimmed(answers(page).first())).resolves.toBe(part.text.trim())
      await expect(
        page.locator('.message.assistant').first().getAttribute('data-status'),
      ).resolves.toBe('stopped')
      await page.keyboard.press('Enter')
      await expect.poll(() => version(page)).toBe('Version 1 of 3')
      await expect(answers(page).first().textContent()).resolves.toBe(first)
      // At the first version, Previous says it is unavailable and keeps the focus.
      await expect(previous.getAttribute('aria-disabled')).resolves.toBe('true')
      await expect(previous.evaluate((button) => button === document.activeElement)).resolves.toBe(
        true,
      )

      // The relay keeps the version shown: a reload shows it too.
      const { conversation } = await stored(id)
      expect(conversation.turns[1]?.branch).toEqual({ index: 0, count: 3 })
      await page.reload()
      await expect.poll(() => version(page)).toBe('Version 1 of 3')
      await expect(answers(page).first().textContent()).resolves.toBe(first)
    },
    TIMEOUT,
  )

  it(
    'edits the first question in place: the model gets only the edited path, the old one a version away',
    async () => {
      gate().open()
      const page = await openDemo()
      await ask(page, 'First question')
      await finished(page)
      await ask(page, 'Second question')
      await finished(page, 1)
      const id = conversationOf(page)!
      const edit = page
        .locator('.message.user')
        .first()
        .getByRole('button', { name: 'Edit this message' })

      // Escape leaves the question as it was, and gives the focus back to Edit.
      await edit.click()
      await expect(focused(page)).resolves.toBe('edit-input')
      await page.keyboard.type(' and more')
      await page.keyboard.press('Escape')
      await expect(questions(page)).resolves.toEqual(['First question', 'Second question'])
      await expect(focused(page)).resolves.toBe('edit')

      // Enter opens it again; Save sends the new version.
      await page.keyboard.press('Enter')
      await page.getByLabel('Edit your message').fill('First, edited')
      await page.getByRole('button', { name: 'Save' }).click()
      await expect(focused(page)).resolves.toBe('prompt')
      await answers(page).filter({ hasText: 'You said: "First, edited"' }).waitFor()
      await finished(page)
      await expect(questions(page)).resolves.toEqual(['First, edited'])
      await expect(page.locator('.message.assistant').count()).resolves.toBe(1)
      await expect(version(page, '.message.user')).resolves.toBe('Version 2 of 2')
      // What the model got is the conversation the relay shows: the edited question alone.
      const { conversation } = await stored(id)
      expect(conversation.turns.map((turn) => turn.content ?? turn.role)).toEqual([
        'First, edited',
        'assistant',
      ])
      expect(conversation.turns[1]?.text).toContain('You said: "First, edited"')

      // The first version of the question brings back the conversation that followed it.
      await page
        .locator('.message.user')
        .first()
        .getByRole('button', { name: 'Previous version' })
        .click()
      await expect.poll(() => questions(page)).toEqual(['First question', 'Second question'])
      await expect(version(page, '.message.user')).resolves.toBe('Version 1 of 2')
      await expect(answers(page).nth(1).textContent()).resolves.toContain('"Second question"')
    },
    TIMEOUT,
  )

  it(
    'queues three messages sent from two tabs during one answer, greyed in both, and answers them in order',
    async () => {
      const first = await openDemo()
      const { id, text } = await inFlight(first)
      const second = await openDemo(`/?c=${id}`)
      await streaming(second, text)

      // Sent while the answer streams: Enter queues them, in the order they came (each once the
      // one before it is in the queue, so that this order is the relay's).
      for (const [page, asked, place] of [
        [second, 'Two', 1],
        [first, 'Three', 2],
        [second, 'Four', 3],
      ] as const) {
        await ask(page, asked)
        await expect.poll(() => page.getByTestId('queued-message').count()).toBe(place)
      }
      for (const page of [first, second]) {
        await expect
          .poll(() => page.getByTestId('queued-message').allTextContents())
          .toEqual(['Two', 'Three', 'Four'])
        await streaming(page, text)
        await expect(page.locator('[data-testid="error"]').count()).resolves.toBe(0)
      }
      const greyed = await first
        .getByTestId('queued-message')
        .first()
        .locator('.bubble')
        .evaluate((bubble) => Number(getComputedStyle(bubble).opacity))
      expect(greyed).toBeLessThan(1)
      await expect(first.getByRole('region', { name: /Queued/ }).count()).resolves.toBe(1)

      gate().open()
      for (const page of [first, second]) {
        await finished(page, 3)
        await expect.poll(() => questions(page)).toEqual([LONG_PROMPT, 'Two', 'Three', 'Four'])
        await expect(page.getByTestId('queue').count()).resolves.toBe(0)
        for (const [nth, asked] of ['Two', 'Three', 'Four'].entries()) {
          await expect(
            answers(page)
              .nth(nth + 1)
              .textContent(),
          ).resolves.toContain(`"${asked}"`)
        }
      }
      const { conversation } = await stored(id)
      expect(conversation.turns.map((turn) => turn.content ?? turn.role)).toEqual([
        LONG_PROMPT,
        'assistant',
        'Two',
        'assistant',
        'Three',
        'assistant',
        'Four',
        'assistant',
      ])
    },
    TIMEOUT,
  )

  it(
    'cancels the queued messages with Cancel; the answer in flight goes on, and nothing more is asked',
    async () => {
      const page = await openDemo()
      const { id, text } = await inFlight(page)
      await ask(page, 'Later, maybe')
      await page.getByTestId('queued-message').waitFor()
      await page.getByRole('button', { name: 'Cancel the queued messages' }).click()
      await page.getByTestId('queue').waitFor({ state: 'detached' })
      await expect(focused(page)).resolves.toBe('prompt')
      await streaming(page, text)
      gate().open()
      await finished(page)
      const { conversation } = await stored(id)
      expect(conversation.turns).toHaveLength(2)
      // One model call: the queued message went nowhere.
      const log = await eventLog(id)
      expect(log.filter((name) => name === 'turn')).toHaveLength(1)
      expect(log).toContain('queued')
    },
    TIMEOUT,
  )

  it(
    'renames a chat in the list of previous chats; Escape keeps its title',
    async () => {
      gate().open()
      const page = await openDemo()
      // Every page of this file is the same client: the titles here are this test's own.
      const title = `Name me (${Date.now().toString(36)})`
      await ask(page, title)
      await finished(page)
      await page.click('[data-testid="new-chat"]')
      const rename = page.getByRole('button', { name: `Rename “${title}”` })
      await rename.click()
      const input = page.getByLabel(`New title for “${title}”`)
      await expect(focused(page)).resolves.toBe('rename-input')
      await input.fill('Not this')
      await page.keyboard.press('Escape')
      await expect(focused(page)).resolves.toBe('rename')
      await page.locator('[data-testid="previous-chat"]', { hasText: title }).waitFor()

      const renamed = `Renamed (${Date.now().toString(36)})`
      await page.keyboard.press('Enter')
      await input.fill(renamed)
      await page.keyboard.press('Enter')
      const listed = page.locator('[data-testid="previous-chat"]', { hasText: renamed })
      await listed.waitFor()
      await expect(focused(page)).resolves.toBe('rename')
      // The relay keeps it: the list after a reload says it too.
      await page.reload()
      await listed.waitFor()
    },
    TIMEOUT,
  )
}
