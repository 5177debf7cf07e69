/**
 * `POST /v1/ai-sdk/chat` on the Worker in workerd, used by the AI SDK's own clients: its chat
 * client (`AbstractChat`, what `useChat` runs) on a `DefaultChatTransport` in Node, and `useChat`
 * from `@ai-sdk/react` on a page in Chromium, served from another origin. Anthropic is a scripted
 * server on loopback behind `ANTHROPIC_BASE_URL`, so each upstream request shows whether the signed
 * thinking of an earlier answer came back through the client.
 */
import { lastAssistantMessageIsCompleteWithToolCalls, type UIMessage } from 'ai'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleForBrowser } from '../helpers/browser.ts'
import { eventually } from '../helpers/eventually.ts'
import { launchChromium } from '../helpers/chromium.ts'
import { relayTransport, TestChat, textOf } from '../relay/ai-sdk/chat.ts'
import {
  anthropicSse,
  answersTool,
  ANSWER_TURN,
  block,
  delta,
  end,
  scriptedAnthropicVars,
  signedThinking,
  start,
  startScriptedAnthropic,
  stop,
  toolTurn,
  TOOL_THINKING,
  type ScriptedAnthropic,
  type UpstreamBody,
} from './scripted-anthropic.ts'
import { ownConnections, startTestWorker, type TestWorker } from './start-worker.ts'

const TOKEN = 'token-ai-sdk-0123456789'
const SEAL_KEYS = 'seal-ai-sdk-Qm4Rt8Wz2Xc6Vb0Nk5Lp7Ds9Hf'
const SIGNATURE = 'EqQBCkYIAxgCKkAiSdkSigned+/=='
const CLAUDE = 'anthropic/claude-sonnet-4-5'
const THINKING = TOOL_THINKING

/** Signed thinking, then an answer: for a question without tools. */
const THINK_TURN = anthropicSse([
  start('msg_think'),
  ...signedThinking('Rayleigh scattering.', SIGNATURE),
  block(1, { type: 'text', text: '' }),
  delta(1, { type: 'text_delta', text: 'Short wavelengths scatter most.' }),
  stop(1),
  ...end('end_turn', 30),
])

let anthropic: ScriptedAnthropic
let upstreamBodies: UpstreamBody[]
let worker: TestWorker
let relayBase: string
/** The test page's own server, on another origin than the Worker's. */
let pages: Server
let pageOrigin: string
let pageScript: Promise<string> | undefined

beforeAll(async () => {
  anthropic = await startScriptedAnthropic(SIGNATURE, (body) =>
    answersTool(body) ? ANSWER_TURN : body.tools === undefined ? THINK_TURN : toolTurn(SIGNATURE),
  )
  upstreamBodies = anthropic.bodies
  pages = createServer((request, response) => {
    if (request.url === '/page.js') {
      void (pageScript ?? Promise.reject(new Error('no page bundled'))).then(
        (script) => {
          response.writeHead(200, { 'content-type': 'text/javascript' })
          response.end(script)
        },
        () => response.writeHead(500).end(),
      )
      return
    }
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end(
      '<!doctype html><meta charset="utf-8"><title>useChat</title><div id="root"></div><script type="module" src="/page.js"></script>',
    )
  })
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve))
  pageOrigin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`
  worker = await startTestWorker({
    ...scriptedAnthropicVars(anthropic, TOKEN, SEAL_KEYS),
    ALLOWED_ORIGINS: pageOrigin,
  })
  relayBase = worker.url.origin
})

afterAll(async () => {
  await worker?.dispose()
  await anthropic?.close()
  await new Promise((resolve) => pages?.close(resolve))
})

/** `useChat`'s client in Node, on the Worker, with `body` as the app's. */
function chatOn(
  body: Record<string, unknown>,
  init: ConstructorParameters<typeof TestChat>[0] = {},
) {
  const errors: Error[] = []
  const chat = new TestChat({
    onError: (error) => errors.push(error),
    ...init,
    transport: relayTransport({
      base: relayBase,
      body,
      token: TOKEN,
      // A connection of its own per request (see `ownConnections`).
      fetch: (input, options) =>
        fetch(input, { ...options, dispatcher: ownConnections } as RequestInit),
    }),
  })
  return { chat, errors }
}

/** The upstream request's `content` blocks of its message `i`. */
const contentOf = (body: UpstreamBody | undefined, i: number) => body?.messages[i]?.content

describe('/v1/ai-sdk/chat with the AI SDK’s chat client', () => {
  it('streams reasoning and text from the mock, with the UI stream’s header', async () => {
    const response = await worker.fetch('/v1/ai-sdk/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({
        id: 'c',
        model: 'mock/echo',
        messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      }),
    })
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1')
    expect((await response.text()).endsWith('data: [DONE]\n\n')).toBe(true)

    const { chat } = chatOn({ model: 'mock/echo' })
    await chat.sendMessage({ text: 'Wie spät ist es? 🕰️' })
    expect(chat.status).toBe('ready')
    expect(textOf(chat.messages[1], 'reasoning')).toContain('The user wrote')
    expect(textOf(chat.messages[1], 'text')).toContain('You said: "Wie spät ist es? 🕰️"')
  })

  it('runs an Anthropic tool loop whose next upstream requests carry the signed thinking', async () => {
    upstreamBodies.length = 0
    const weather = {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    }
    const { chat } = chatOn(
      { model: CLAUDE, tools: [weather], thinking: 'low' },
      {
        sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
        onToolCall: ({ toolCall }) => {
          const { city } = toolCall.input as { city: string }
          void chat.addToolOutput({
            tool: 'get_weather',
            toolCallId: toolCall.toolCallId,
            output: `sunny in ${city}, 21 °C`,
          })
        },
      },
    )
    await chat.sendMessage({ text: 'What is the weather in Paris?' })
    // The client sends the tool's output by itself; the loop ends with the answer.
    await eventually(() => upstreamBodies.length === 2 && chat.status === 'ready', 'the answer', {
      ms: 20_000,
    })

    const answer = chat.messages[1]!
    expect(chat.messages).toHaveLength(2)
    expect(textOf(answer, 'reasoning')).toBe(THINKING)
    expect(textOf(answer, 'text')).toBe('Let me check.Sunny in Paris, 21 °C.')
    const replayed = [
      { type: 'thinking', thinking: THINKING, signature: SIGNATURE },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_weather', name: 'get_weather', input: { city: 'Paris' } },
    ]
    expect(contentOf(upstreamBodies[1], 1)).toEqual(replayed)

    // A message after the loop: both steps go back, the signature with the first.
    // (The scripted model calls the tool again, and the client answers it again.)
    await chat.sendMessage({ text: 'Thanks!' })
    await eventually(() => upstreamBodies.length === 4 && chat.status === 'ready', 'the answer', {
      ms: 20_000,
    })
    expect(upstreamBodies[2]?.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ])
    expect(contentOf(upstreamBodies[2], 1)).toEqual(replayed)
  })

  it('replays nothing it cannot verify: an edited answer goes upstream as text, without the signature', async () => {
    const { chat } = chatOn({ model: CLAUDE, thinking: 'low' })
    await chat.sendMessage({ text: 'Why is the sky blue?' })
    expect(textOf(chat.messages[1], 'reasoning')).toBe('Rayleigh scattering.')
    const part = chat.messages[1]!.parts.find((p) => p.type === 'text')!
    part.text = 'Because I said so.'
    upstreamBodies.length = 0
    await chat.sendMessage({ text: 'Really?' })
    expect(JSON.stringify(upstreamBodies[0])).not.toContain(SIGNATURE)
    expect(contentOf(upstreamBodies[0], 1)).toEqual([{ type: 'text', text: 'Because I said so.' }])
  })

  it('raises a failure after the first part as the client’s error, with the partial answer kept', async () => {
    const { chat, errors } = chatOn({ model: 'test/break' })
    await chat.sendMessage({ text: 'Hi' })
    expect(chat.status).toBe('error')
    expect(chat.error).toBeInstanceOf(Error)
    expect(errors).toEqual([chat.error])
    expect(textOf(chat.messages[1], 'text')).toBe('partial answer')
    const raw = await postRaw({ model: 'test/break' })
    expect(raw.status).toBe(200)
    const parts = (await raw.text()).split('\n\n').filter((frame) => frame !== '')
    expect(parts.at(-1)).toBe('data: [DONE]')
    const failure = JSON.parse(parts.at(-2)!.slice('data: '.length)) as Record<string, unknown>
    expect(failure).toMatchObject({ type: 'error', kind: 'server' })
    expect(chat.error?.message).toBe(failure['errorText'])
  })

  it('raises a refusal before the first part as the client’s error, its body the error part', async () => {
    const raw = await postRaw({ model: 'test/refuse' })
    expect(raw.status).toBe(429)
    expect(raw.headers.get('retry-after')).toBe('7')
    const body = await raw.text()
    expect(JSON.parse(body)).toEqual({
      type: 'error',
      errorText: 'upstream busy',
      kind: 'rate-limit',
      retryable: true,
      retryAfterMs: 7000,
    })
    const { chat } = chatOn({ model: 'test/refuse' })
    await chat.sendMessage({ text: 'Hi' })
    expect(chat.status).toBe('error')
    expect(chat.error?.message).toBe(body)
  })

  it('answers only as a stream: a request for one JSON answer is refused, naming the field', async () => {
    const raw = await postRaw({ model: 'mock/echo', stream: false })
    expect(raw.status).toBe(400)
    expect(await raw.json()).toMatchObject({ type: 'error', field: 'stream' })
  })
})

/** POSTs one question as the transport would, with the app's `body`. */
function postRaw(body: Record<string, unknown>): Promise<Response> {
  return worker.fetch('/v1/ai-sdk/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({
      id: 'c',
      trigger: 'submit-message',
      messages: [
        { id: 'u', role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
      ] satisfies UIMessage[],
      ...body,
    }),
  })
}

describe('/v1/ai-sdk/chat with useChat from @ai-sdk/react in Chromium', () => {
  let browser: Browser | undefined

  beforeAll(async () => {
    pageScript = bundleForBrowser(`${import.meta.dirname}/ai-sdk-page.tsx`, {
      production: true,
    }).then((result) => result.text)
    pageScript.catch(() => {})
    browser = await launchChromium({ timeout: 60_000 })
    await pageScript
  })

  afterAll(async () => {
    await browser?.close()
  })

  it('shows the reasoning and the answer, then sends the answer’s metadata back with the next message', async () => {
    upstreamBodies.length = 0
    const page = await browser!.newPage()
    const failures: string[] = []
    page.on('pageerror', (error) => failures.push(error.message))
    page.on('requestfailed', (request) =>
      failures.push(`${request.url()} ${request.failure()?.errorText}`),
    )
    const query = new URLSearchParams({ relay: relayBase, token: TOKEN, model: CLAUDE })
    await page.goto(`${pageOrigin}/?${query}`)

    await page.fill('[data-testid="prompt"]', 'Why is the sky blue?')
    await page.press('[data-testid="prompt"]', 'Enter')
    const answer = page.locator('[data-testid="assistant"]')
    await answer.locator('[data-testid="text"]').waitFor()
    await page.locator('[data-testid="status"]', { hasText: 'ready' }).waitFor()
    expect(await answer.locator('[data-testid="reasoning"]').textContent()).toBe(
      'Rayleigh scattering.',
    )
    expect(await answer.locator('[data-testid="text"]').textContent()).toBe(
      'Short wavelengths scatter most.',
    )

    const sent = page.waitForRequest(
      (request) => request.url().endsWith('/v1/ai-sdk/chat') && request.method() === 'POST',
    )
    await page.fill('[data-testid="prompt"]', 'And at sunset?')
    await page.press('[data-testid="prompt"]', 'Enter')
    const body = (await sent).postDataJSON() as { messages: UIMessage[] }
    const metadata = body.messages[1]?.metadata as { thinkwire: { steps: { sealed: string }[] } }
    expect(metadata.thinkwire.steps[0]?.sealed).toEqual(expect.any(String))
    await answer.nth(1).locator('[data-testid="text"]').waitFor()
    await page.locator('[data-testid="status"]', { hasText: 'ready' }).waitFor()

    expect(upstreamBodies).toHaveLength(2)
    expect(contentOf(upstreamBodies[1], 1)).toEqual([
      { type: 'thinking', thinking: 'Rayleigh scattering.', signature: SIGNATURE },
      { type: 'text', text: 'Short wavelengths scatter most.' },
    ])
    expect(await page.locator('[data-testid="error"]').count()).toBe(0)
    expect(failures).toEqual([])
    await page.close()
  })
})
