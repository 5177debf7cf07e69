import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  buildSnapshot,
  openPage,
  release as releasePage,
  root,
  SETUP_MS,
  SIZES,
  startInWorkerd,
  type Worker,
} from './harness.ts'

// The Worker as deployed, configured as a newcomer configures it: nothing at all (the offline mock
// model, on its own clock), provider keys and nothing else, or RELAY_TOKENS. The keys are fake
// and nothing is sent to a model: /v1/models lists what a key serves without calling the provider.
const TIMEOUT = 90_000
const TOKEN = 'e2e-token-0123456789abcdef'
const PROVIDERS = [
  ['anthropic', 'ANTHROPIC_API_KEY', 'sk-ant-e2e-not-a-real-key-0000000000'],
  ['openai', 'OPENAI_API_KEY', 'sk-e2e-not-a-real-key-0000000000'],
  ['gemini', 'GEMINI_API_KEY', 'AIza-e2e-not-a-real-key-0000000000'],
] as const

const workers = new Map<string, Worker>()
let browser: Browser | undefined

function chromium(): Browser {
  if (browser === undefined) throw new Error('Chromium did not start')
  return browser
}

function relayNamed(name: string): Worker {
  const found = workers.get(name)
  if (found === undefined) throw new Error(`no worker ${name}`)
  return found
}

/**
 * The tests of the Worker as a newcomer configures it, each setting on a Worker of its own, in
 * `launched` (see `chromiumForFile`).
 */
export function configurationTests(launched: () => Promise<Browser>): void {
  describe('configuration, in workerd and Chromium', () => {
    setUp(launched)
    suite()
  })
}

/**
 * Starts the Workers before the suite's tests, and stops them after. Each runs the deployed
 * bundle in workerd alone, configured from wrangler.toml as `wrangler dev` configures it: the
 * settings are what these tests are about, and a `wrangler dev` of its own for each cost about
 * 4.5 s of CPU more. `npm start` runs under `wrangler dev` in test/scripts/start.test.ts, and the
 * demo's suites serve their gated Worker under it.
 */
function setUp(launched: () => Promise<Browser>): void {
  beforeAll(async () => {
    const snapshot = await buildSnapshot()
    const settings: [string, Record<string, string>][] = [
      // A key of each provider (which each serve alone is tested in test/worker/worker.test.ts).
      ['keys', Object.fromEntries(PROVIDERS.map(([, key, value]) => [key, value]))],
      // Nothing set: the offline mock, paced by its own clock (MOCK_DELAY_MS of wrangler.toml).
      ['nothing', {}],
      // The mock answers at once: these tests are about the token, not about streaming.
      ['tokens', { RELAY_TOKENS: TOKEN, MOCK_MODELS: 'on', MOCK_DELAY_MS: '0' }],
    ]
    // One at a time, each kept as it starts (so that one failing to start leaves none of the
    // others running).
    for (const [name, vars] of settings) workers.set(name, await startInWorkerd(snapshot, vars))
    browser = await launched()
  }, SETUP_MS)

  afterAll(async () => {
    await Promise.all([...workers.values()].map((w) => w.stop()))
  })
}

function suite(): void {
  it(
    'serves the offline mock with nothing set, says so, and its tour thinks live, on its own clock, before the answer',
    async () => {
      const relay = relayNamed('nothing')
      const response = await fetch(`${relay.base}/v1/models`)
      const { models } = (await response.json()) as { models: { id: string }[] }
      expect(models.map((m) => m.id)).toEqual(['mock/echo'])

      const page = await openPage(chromium(), relay)
      await page.locator('[data-testid="model"] option[value="mock/echo"]').waitFor({
        state: 'attached',
      })
      await page.getByText('Running on the offline mock model').waitFor()
      // Every render is checked as it happens (a poll could miss a state between two frames): the
      // lane streams alone while the mock thinks, for 1.5 s, before any answer.
      await page.evaluate(() => {
        const seen = { thinkingAlone: false }
        Object.assign(window, { seen })
        new MutationObserver(() => {
          const lane = document.querySelector('[data-testid="thinking"]')
          if (
            lane?.getAttribute('data-open') === 'true' &&
            (lane.textContent ?? '').includes('The user') &&
            document.querySelector('[data-testid="answer"]') === null
          ) {
            seen.thinkingAlone = true
          }
        }).observe(document.body, {
          subtree: true,
          childList: true,
          characterData: true,
          attributes: true,
        })
      })
      // The first suggestion asks for the tour.
      await page.getByRole('button', { name: 'Show me a markdown demo.' }).click()
      await page.locator('[data-testid="usage"]').waitFor()
      await expect(
        page.evaluate(() => (window as unknown as { seen: { thinkingAlone: boolean } }).seen),
      ).resolves.toEqual({ thinkingAlone: true })
      // As long as the relay saw it think: at least the mock's clock, more on a slow machine.
      const label = await page.locator('[data-testid="thinking"]').first().textContent()
      expect(
        Number(/^Thought for (\d+(?:\.\d)?) s$/.exec(label ?? '')?.[1]),
      ).toBeGreaterThanOrEqual(1.2)
      await expect(page.locator('[data-testid="answer"]').first().textContent()).resolves.toContain(
        'Ask anything else and the mock quotes it back.',
      )
      // The README's picture of the demo as `npm start` serves it, made here to stay current: into
      // test-results/, and over docs/demo.png with UPDATE_SCREENSHOT=1 (not on every run: its
      // timings differ from run to run, and a test run leaves the tree as it found it).
      const shot = process.env['UPDATE_SCREENSHOT'] === '1' ? 'docs' : 'test-results'
      mkdirSync(join(root, shot), { recursive: true })
      await page.evaluate(() => window.scrollTo({ top: 0 }))
      await page.screenshot({ path: join(root, shot, 'demo.png') })
      await releasePage(page)
    },
    TIMEOUT,
  )

  it(
    'serves the current models of each provider whose key is set, and the picker shows them',
    async () => {
      const relay = relayNamed('keys')
      const response = await fetch(`${relay.base}/v1/models`)
      expect(response.status).toBe(200)
      const body = (await response.json()) as {
        models: { id: string; thinking: { mode: string } }[]
        notice?: string
      }
      const ids = body.models.map((m) => m.id)
      for (const [provider] of PROVIDERS) {
        expect(ids.filter((id) => id.startsWith(`${provider}/`)).length).toBeGreaterThan(2)
      }
      // The keys' providers and nothing else: no mock, no notice about it.
      expect(ids.every((id) => PROVIDERS.some(([provider]) => id.startsWith(`${provider}/`)))).toBe(
        true,
      )
      expect(body.notice).toBeUndefined()

      for (const [, viewport] of SIZES) {
        const page = await openPage(chromium(), relay, { viewport })
        const picker = page.locator('[data-testid="model"]')
        await page.locator(`[data-testid="model"] option[value="${ids[0]}"]`).waitFor({
          state: 'attached',
        })
        await expect(
          picker
            .locator('option')
            .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)),
        ).resolves.toEqual(ids)
        // The saved default (mock/echo) is not served: the first served model is picked.
        await expect(picker.inputValue()).resolves.toBe(ids[0])
        await expect(picker.isVisible()).resolves.toBe(true)
        // Each provider's first model, picked, offers thinking levels as it takes them.
        for (const [provider] of PROVIDERS) {
          const first = body.models.find((m) => m.id.startsWith(`${provider}/`))!
          await picker.selectOption(first.id)
          await expect(page.locator('[data-testid="thinking-level"]').count()).resolves.toBe(
            first.thinking.mode === 'none' ? 0 : 1,
          )
        }
        await expect(page.getByText('offline mock model').count()).resolves.toBe(0)
        await expect(page.locator('[data-testid="error"]').count()).resolves.toBe(0)
        // Nothing left the page but its own origin.
        const requests: string[] = []
        page.on('request', (request) => requests.push(request.url()))
        await page.reload()
        await page.locator(`[data-testid="model"] option[value="${ids[0]}"]`).waitFor({
          state: 'attached',
        })
        expect(requests.every((url) => url.startsWith(relay.base))).toBe(true)
        await releasePage(page)
      }
    },
    TIMEOUT,
  )

  for (const [size, viewport] of SIZES) {
    it(
      `asks for the token of a relay with RELAY_TOKENS, keeps it, and sends it as a bearer header (${size})`,
      async () => {
        const relay = relayNamed('tokens')
        const page = await openPage(chromium(), relay, { viewport })
        const form = page.locator('[data-testid="token-form"]')
        // /v1/models answered 401: the demo asks for a token.
        await form.waitFor()
        await expect(form.textContent()).resolves.toContain('needs an access token')
        // With the relay's own reason, read from its 401.
        await expect(form.textContent()).resolves.toContain(
          'The relay says: a valid bearer token is required.',
        )

        // A send without a token fails the same way, and the question stays for after the token.
        await page.fill('[data-testid="prompt"]', 'Hello with a token')
        await page.press('[data-testid="prompt"]', 'Enter')
        await page.locator('[data-testid="user-message"]').waitFor()
        await expect(page.locator('[data-testid="error"]').count()).resolves.toBe(0)

        // The send with a wrong token is held on its way while the right token is given: the
        // retry then waits for that send's refusal instead of being lost.
        const wrong = 'not-the-right-token-000'
        let release = () => {}
        const released = new Promise<void>((resolve) => (release = resolve))
        let held = () => {}
        const holding = new Promise<void>((resolve) => (held = resolve))
        await page.route('**/v1/conversations*', async (route) => {
          const request = route.request()
          if (
            request.method() === 'POST' &&
            request.headers()['authorization'] === `Bearer ${wrong}`
          ) {
            held()
            await released
          }
          await route.continue()
        })
        await page.fill('[data-testid="token"]', wrong)
        await page.press('[data-testid="token"]', 'Enter')
        await holding
        await page.getByText('The relay refused this token').waitFor()

        // The message (sent once the conversation exists) carries the token.
        const sent: (string | undefined)[] = []
        page.on('request', (request) => {
          if (new URL(request.url()).pathname.endsWith('/messages')) {
            sent.push(request.headers()['authorization'])
          }
        })
        // Until the relay has answered the right token, the form does not call it refused.
        let answerModels = () => {}
        const modelsAnswered = new Promise<void>((resolve) => (answerModels = resolve))
        await page.route('**/v1/models', async (route) => {
          if (route.request().headers()['authorization'] === `Bearer ${TOKEN}`) await modelsAnswered
          await route.continue()
        })
        await page.fill('[data-testid="token"]', TOKEN)
        await page.press('[data-testid="token"]', 'Enter')
        await page.getByText('Checking the token with the relay').waitFor()
        await expect(page.getByText('The relay refused this token').count()).resolves.toBe(0)
        answerModels()
        release()
        // The failed question is sent again with the token, and answered.
        await page.locator('[data-testid="usage"]').first().waitFor()
        await expect(form.count()).resolves.toBe(0)
        await expect(
          page.locator('[data-testid="answer"]').first().textContent(),
        ).resolves.toContain('You said: "Hello with a token"')
        expect(sent).toEqual([`Bearer ${TOKEN}`])
        await expect(page.locator('[data-testid="model"]').inputValue()).resolves.toBe('mock/echo')

        // Kept across a reload: no question asked.
        await page.reload()
        await page.locator('[data-testid="model"] option[value="mock/echo"]').waitFor({
          state: 'attached',
        })
        await expect(form.count()).resolves.toBe(0)
        await releasePage(page)
      },
      TIMEOUT,
    )
  }
}
