/**
 * A body the Worker refuses (too large, not JSON, sent where no route is), then the next request,
 * in the two runtimes the Worker runs in locally: workerd over real HTTP, and `wrangler dev`
 * (as `npm start` runs it), whose proxy keeps connections of its own to the Worker. Refusing a
 * body must cost neither the client's connection nor anyone's next request.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { Agent, request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildSnapshot } from '../e2e/harness.ts'
import { startWranglerDev, type WranglerDev } from '../wrangler-dev.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

const VARS = {
  ALLOW_ANONYMOUS: 'true',
  MOCK_MODELS: 'on',
  MOCK_DELAY_MS: '0',
  RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
  RATE_LIMIT_TOKENS_PER_MINUTE: '0',
}
/** The Worker's default body limit (MAX_BODY_BYTES). */
const LIMIT = 1024 * 1024
/** About 3 MB of JSON, three times the limit, as a pasted file makes it. */
const OVERSIZE = JSON.stringify({
  model: 'mock/echo',
  conversation: { turns: [{ role: 'user', content: 'x'.repeat(3 * 1000 * 1000) }] },
})
const ASK = JSON.stringify({
  model: 'mock/echo',
  conversation: { turns: [{ role: 'user', content: 'Hi' }] },
})

let dir: string
let workerd: TestWorker | undefined
let dev: WranglerDev | undefined

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'thinkwire-oversize-'))
  // The Worker bundled as a deploy bundles it, with the demo (wrangler dev then never reloads
  // under a test): the snapshot the browser tests run, built once for every file that asks.
  const { worker: script, assets } = await buildSnapshot()
  // One after the other: two Workers starting at once on two cores slow both.
  workerd = await startTestWorker(VARS)
  dev = await startWranglerDev({
    args: [
      '--config',
      'wrangler.toml',
      script,
      '--no-bundle',
      '--assets',
      assets,
      '--persist-to',
      join(dir, 'persist'),
    ],
    vars: VARS,
  })
}, 180_000)

afterAll(async () => {
  await Promise.all([workerd?.dispose(), dev?.stop()])
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

/** An answer read to its end, and whether its request went on a connection used before. */
type Answer = { status: number; text: string; reused: boolean }

/**
 * POSTs `body` to `base` + `path` through `agent` (`false`: a connection of its own). A body given
 * as chunks goes without a `content-length` (chunked).
 */
function post(
  base: string,
  agent: Agent | false,
  path: string,
  headers: Record<string, string>,
  body: string | Uint8Array[],
): Promise<Answer> {
  return new Promise((done, fail) => {
    const sized =
      typeof body === 'string' ? { 'content-length': String(Buffer.byteLength(body)) } : {}
    const request = httpRequest(
      new URL(path, base),
      { method: 'POST', agent, headers: { ...headers, ...sized } },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('error', fail)
        response.on('end', () =>
          done({ status: response.statusCode!, text, reused: request.reusedSocket }),
        )
      },
    )
    request.on('error', fail)
    for (const chunk of typeof body === 'string' ? [body] : body) request.write(chunk)
    request.end()
  })
}

/** The same bytes as `body`, in 64 KiB chunks. */
function chunked(body: string): Uint8Array[] {
  const bytes = new TextEncoder().encode(body)
  const chunks: Uint8Array[] = []
  for (let at = 0; at < bytes.byteLength; at += 64 * 1024) {
    chunks.push(bytes.subarray(at, at + 64 * 1024))
  }
  return chunks
}

const json = { 'content-type': 'application/json' }

const refusals = [
  ['/v1/chat', json, 413, `at most ${LIMIT} bytes`],
  ['/v1/chat/completions', json, 413, `at most ${LIMIT} bytes`],
  ['/v1/conversations', json, 413, `at most ${LIMIT} bytes`],
  ['/v1/chat', { 'content-type': 'text/plain' }, 415, 'application/json'],
  ['/v1/nothing', json, 404, 'no route'],
] as const

const runtimes = [
  ['workerd', () => workerd!.url.href],
  ['wrangler dev', () => dev!.base],
] as const

describe.each(runtimes)('a refused body under %s', (_runtime, base) => {
  describe.each([
    ['with a content-length', (body: string) => body],
    ['chunked, without a content-length', chunked],
  ] as const)('%s', (_shape, shape) => {
    it.each(refusals)(
      'answers POST %s (%s) with %i, then the next request on the same and on a new connection',
      async (path, headers, status, message) => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 })
        try {
          const refused = await post(base(), agent, path, headers, shape(OVERSIZE))
          expect(refused.status).toBe(status)
          expect(refused.text).toContain(message)

          const kept = await post(base(), agent, '/v1/chat', json, ASK)
          expect(kept).toMatchObject({ status: 200, reused: true })
          expect(kept.text).toContain('event: done')

          const fresh = await post(base(), false, '/v1/chat', json, ASK)
          expect(fresh.status).toBe(200)
          expect(fresh.text).toContain('event: done')
        } finally {
          agent.destroy()
        }
      },
    )
  })
})
