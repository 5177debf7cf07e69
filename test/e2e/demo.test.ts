import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest'

// The built demo, served by the real Worker under `wrangler dev` (as `npm start` does, from
// snapshots of both), driven in headless Chromium. The mock model pauses before each delta, so
// there is time to watch it think and to stop it.
const root = resolve(import.meta.dirname, '../..')
const CHROMIUM = '/usr/bin/chromium'
const MOCK_DELAY_MS = 120
/** Per test: a machine busy with other test files can slow the browser down a lot. */
const TIMEOUT = 45_000
const LONG_PROMPT =
  'Tell me everything about how streamed reasoning reaches the browser: the provider stream, ' +
  'the adapter, the relay on the edge, the SSE wire format, the client adapter and the React hook.'

let wrangler: ChildProcess | undefined
let state: string
let base: string
let browser: Browser
const output: string[] = []

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolvePort(address.port)
          : reject(new Error('no port')),
      )
    })
  })
}

async function waitForRelay(url: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (wrangler?.exitCode !== null) break
    try {
      const response = await fetch(`${url}/v1/models`)
      if (response.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error(`wrangler dev did not become ready:\n${output.join('').slice(-3000)}`)
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The demo test drives Chromium at ${CHROMIUM}, which is missing: install it with ` +
        '`apt-get install -y chromium` (.ci/run does this when it is missing).',
    )
  }
  const env = {
    ...process.env,
    WRANGLER_SEND_METRICS: 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    CI: '1',
  }
  const wranglerBin = join(root, 'node_modules/.bin/wrangler')
  state = mkdtempSync(join(tmpdir(), 'thinkwire-e2e-'))
  // Snapshots of the built demo and of the Worker bundled by wrangler as a deploy would: wrangler
  // dev reloads (and drops open streams) when its sources or assets change, and this tree may be
  // edited or rebuilt while the test runs.
  const assets = join(state, 'assets')
  execFileSync('npm', ['run', 'build:demo', '--', '--outDir', assets, '--emptyOutDir'], {
    cwd: root,
    // Vitest sets NODE_ENV=test, which would give a development build of React.
    env: { ...env, NODE_ENV: 'production' },
    stdio: 'pipe',
  })
  const bundle = join(state, 'bundle')
  execFileSync(wranglerBin, ['deploy', '--dry-run', '--outdir', bundle, '--assets', assets], {
    cwd: root,
    env,
    stdio: 'pipe',
  })
  const [port, inspector] = [await freePort(), await freePort()]
  wrangler = spawn(
    wranglerBin,
    [
      'dev',
      '--config',
      'wrangler.toml',
      join(bundle, 'index.js'),
      '--no-bundle',
      '--assets',
      assets,
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspector),
      '--persist-to',
      join(state, 'persist'),
      '--show-interactive-dev-session=false',
      '--var',
      'MOCK_MODELS:on',
      '--var',
      `MOCK_DELAY_MS:${MOCK_DELAY_MS}`,
    ],
    {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so workerd (its child) is stopped with it.
      detached: true,
    },
  )
  wrangler.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()))
  wrangler.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()))
  base = `http://127.0.0.1:${port}`
  await waitForRelay(base, 45_000)
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
})

afterAll(async () => {
  await browser?.close()
  const pid = wrangler?.pid
  if (pid !== undefined && wrangler?.exitCode === null) {
    const exited = new Promise((r) => wrangler?.once('exit', r))
    process.kill(-pid, 'SIGTERM')
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
    if (wrangler?.exitCode === null) process.kill(-pid, 'SIGKILL')
  }
  if (state !== undefined) rmSync(state, { recursive: true, force: true })
})

async function openDemo(viewport = { width: 1100, height: 820 }): Promise<Page> {
  const page = await browser.newPage({ viewport })
  const browserLog: string[] = []
  page.on('console', (message) => browserLog.push(`[console.${message.type()}] ${message.text()}`))
  page.on('requestfailed', (request) =>
    browserLog.push(`[request failed] ${request.url()} ${request.failure()?.errorText}`),
  )
  // On failure, keep what the page showed and what the relay and the browser said.
  onTestFailed(async () => {
    mkdirSync(join(root, 'test-results'), { recursive: true })
    const name = `test-results/e2e-failure-${Date.now()}.png`
    await page.screenshot({ path: join(root, name) }).catch(() => {})
    console.error(
      `screenshot: ${name}\nbrowser:\n${browserLog.join('\n')}\nrelay:\n${output.join('').slice(-4000)}`,
    )
  })
  await page.goto(base)
  await page.evaluate(() => localStorage.clear())
  await page.reload()
  await page
    .locator('[data-testid="model"] option[value="mock/echo"]')
    .waitFor({ state: 'attached' })
  await page.selectOption('[data-testid="model"]', 'mock/echo')
  return page
}

const answers = (page: Page) => page.locator('[data-testid="answer"]')
const lanes = (page: Page) => page.locator('[data-testid="thinking"]')

describe('demo in Chromium, served by wrangler dev', () => {
  it(
    'streams thinking then the answer, and keeps the conversation across a reload',
    async () => {
      const page = await openDemo()
      await page.fill('[data-testid="prompt"]', 'Hello thinkwire')
      await page.press('[data-testid="prompt"]', 'Enter')

      // While it thinks, the lane is open and streams; there is no answer yet.
      await page.waitForFunction(() => {
        const lane = document.querySelector('[data-testid="thinking"]')
        return (
          lane?.getAttribute('data-open') === 'true' &&
          (lane.textContent ?? '').includes('The user') &&
          document.querySelector('[data-testid="answer"]') === null
        )
      })
      await expect(page.locator('[data-testid="stop"]').isVisible()).resolves.toBe(true)

      // When the answer starts, the lane folds to "Thought for N s".
      await answers(page).first().waitFor()
      await page.locator('[data-testid="usage"]').first().waitFor()
      const lane = lanes(page).first()
      await expect(lane.getAttribute('data-open')).resolves.toBe('false')
      await expect(lane.textContent()).resolves.toMatch(/^Thought for \d+(\.\d)? s$/)
      const answer = await answers(page).first().textContent()
      expect(answer).toContain('You said: "Hello thinkwire"')
      await expect(page.locator('[data-testid="usage"]').first().textContent()).resolves.toMatch(
        /first token \d+(\.\d)? s.*\d+ in · \d+ out/,
      )
      await expect(answers(page).first().getAttribute('aria-live')).resolves.toBe('polite')

      // The lane expands again on demand, showing the reasoning.
      await lane.locator('button').click()
      await expect(lane.textContent()).resolves.toContain('The user wrote 15 characters')

      // Reload: the conversation (with its opaque items) is back, and the next turn is accepted.
      await page.reload()
      await answers(page).first().waitFor()
      await expect(answers(page).first().textContent()).resolves.toBe(answer)
      await expect(
        page.locator('[data-testid="user-message"]').first().textContent(),
      ).resolves.toBe('Hello thinkwire')
      await expect(lanes(page).first().textContent()).resolves.toMatch(/^Thought for/)
      await page.fill('[data-testid="prompt"]', 'And once more')
      await page.click('[data-testid="send"]')
      await page.locator('[data-testid="usage"]').nth(1).waitFor()
      await expect(answers(page).nth(1).textContent()).resolves.toContain('"And once more"')
      await expect(page.locator('[data-testid="error"]').count()).resolves.toBe(0)
      await page.close()
    },
    TIMEOUT,
  )

  it(
    'stops a long answer mid-way with the button or Escape, and regenerates it',
    async () => {
      const page = await openDemo()
      // Shift+Enter is a new line, not a send.
      await page.click('[data-testid="prompt"]')
      await page.keyboard.type('line one')
      await page.keyboard.press('Shift+Enter')
      await page.keyboard.type('line two')
      await expect(page.inputValue('[data-testid="prompt"]')).resolves.toBe('line one\nline two')
      await expect(page.locator('[data-testid="user-message"]').count()).resolves.toBe(0)

      await page.fill('[data-testid="prompt"]', LONG_PROMPT)
      await page.press('[data-testid="prompt"]', 'Enter')
      await page.waitForFunction(
        () => (document.querySelector('[data-testid="answer"]')?.textContent ?? '').length > 40,
      )
      // Mid-answer, with the thinking lane opened: the screenshot for the record.
      await lanes(page).first().locator('button').click()
      await expect(lanes(page).first().getAttribute('data-open')).resolves.toBe('true')
      mkdirSync(join(root, 'test-results'), { recursive: true })
      // Let the lane's chevron finish turning (a 150 ms transition) before the picture.
      await page.waitForTimeout(200)
      await page.screenshot({ path: join(root, 'test-results/demo-mid-answer.png') })

      await page.click('[data-testid="stop"]', { timeout: 5000 })
      await page.locator('[data-testid="send"]').waitFor()
      const full = `You said: "${LONG_PROMPT.slice(0, 200)}…". I am thinkwire's offline mock model, so this answer is scripted.`
      const stopped = (await answers(page).first().textContent()) ?? ''
      expect(stopped.length).toBeGreaterThan(40)
      expect(stopped.length).toBeLessThan(full.length)
      expect(full.startsWith(stopped)).toBe(true)
      await expect(
        page.locator('.message.assistant').first().getAttribute('data-status'),
      ).resolves.toBe('stopped')

      // Regenerate replaces the stopped answer; Escape stops the new one.
      await page.click('[data-testid="regenerate"]')
      await page.waitForFunction(
        () => (document.querySelector('[data-testid="answer"]')?.textContent ?? '').length > 20,
      )
      await page.keyboard.press('Escape')
      await page.locator('[data-testid="send"]').waitFor()
      await expect(answers(page).count()).resolves.toBe(1)
      const again = (await answers(page).first().textContent()) ?? ''
      expect(again.length).toBeLessThan(full.length)
      expect(full.startsWith(again)).toBe(true)
      await expect(
        page.locator('.message.assistant').first().getAttribute('data-status'),
      ).resolves.toBe('stopped')
      await page.close()
    },
    TIMEOUT,
  )

  it(
    'shows an error banner and retries the failed message',
    async () => {
      const page = await openDemo()
      let calls = 0
      await page.route('**/v1/chat', async (route) => {
        calls++
        if (calls === 1) {
          await route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({ error: { kind: 'overloaded', message: 'the model is busy' } }),
          })
        } else await route.continue()
      })
      await page.fill('[data-testid="prompt"]', 'Are you there?')
      await page.press('[data-testid="prompt"]', 'Enter')
      const banner = page.locator('[data-testid="error"]')
      await banner.waitFor()
      await expect(banner.textContent()).resolves.toContain('the model is busy')
      await expect(banner.getAttribute('role')).resolves.toBe('alert')
      await expect(page.locator('[data-testid="user-message"]').count()).resolves.toBe(1)

      await page.click('[data-testid="retry"]')
      await page.locator('[data-testid="usage"]').first().waitFor()
      await expect(banner.count()).resolves.toBe(0)
      await expect(answers(page).first().textContent()).resolves.toContain('"Are you there?"')
      expect(calls).toBe(2)
      await page.close()
    },
    TIMEOUT,
  )

  it(
    'fits a phone screen without sideways scrolling',
    async () => {
      const page = await openDemo({ width: 375, height: 740 })
      await page.fill(
        '[data-testid="prompt"]',
        'Does this fit on a small screen, long words and all?',
      )
      await page.press('[data-testid="prompt"]', 'Enter')
      await page.locator('[data-testid="usage"]').first().waitFor()
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      )
      expect(overflow).toBeLessThanOrEqual(0)
      await expect(page.locator('[data-testid="model"]').isVisible()).resolves.toBe(true)
      await expect(page.locator('[data-testid="send"]').isVisible()).resolves.toBe(true)
      await page.screenshot({ path: join(root, 'test-results/demo-phone.png') })
      await page.close()
    },
    TIMEOUT,
  )
})
