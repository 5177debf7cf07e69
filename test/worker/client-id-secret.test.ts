import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestWorker, type TestWorker } from './start-worker.ts'

// A relay that ran with RELAY_TOKENS and no CLIENT_ID_SECRET moves to the secret that
// `npm run client-id-secret` prints: every conversation made before stays its client's, also
// after a token is added.

const root = resolve(import.meta.dirname, '../..')
const FIRST = 'token-first-client-0123456789'
const ADDED = 'token-added-later-0123456789'

type Run = { code: number | null; stdout: string; stderr: string }

/** `npm run client-id-secret`, with these variables and this stdin (none: a closed, empty one). */
function clientIdSecret(env: Record<string, string>, stdin = ''): Promise<Run> {
  return new Promise((done, reject) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/client-id-secret.ts'],
      { cwd: root, env: { PATH: process.env['PATH'] ?? '', ...env } },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== 'number') return reject(error)
        done({ code: error === null ? 0 : (error.code as number), stdout, stderr })
      },
    )
    child.stdin?.end(stdin)
  })
}

/** A token's client id as a relay without CLIENT_ID_SECRET has always made it. */
async function historicalId(tokens: string[], token: string): Promise<string> {
  const utf8 = new TextEncoder()
  const secret = await crypto.subtle.digest(
    'SHA-256',
    utf8.encode(`thinkwire client ids\n${tokens.toSorted().join('\n')}`),
  )
  const key = await crypto.subtle.importKey(
    'raw',
    secret,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, utf8.encode(token)))
  return `token:${[...mac]
    .map((byte) => byte.toString(16).padStart(2, '0'))
    .join('')
    .slice(0, 16)}`
}

let printed: Run
let worker: TestWorker

beforeAll(async () => {
  printed = await clientIdSecret({ RELAY_TOKENS: FIRST })
  expect(printed.code, printed.stderr).toBe(0)
  worker = await startTestWorker(
    {
      // The relay before: FIRST alone, no secret (serving requests marked `x-relay: before`).
      BEFORE_RELAY_TOKENS: FIRST,
      // The relay after: the printed secret, and a token added.
      RELAY_TOKENS: `${FIRST},${ADDED}`,
      CLIENT_ID_SECRET: printed.stdout.trim(),
      MOCK_MODELS: 'on',
      MOCK_DELAY_MS: '0',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
    },
    'test/worker/fixtures/client-ids-worker.ts',
  )
}, 90_000)

afterAll(async () => {
  await worker?.dispose()
})

const as = (token: string) => ({ authorization: `Bearer ${token}` })

// The tests that run the script start a Node process with tsx for each run: seconds apiece on a
// busy machine, so they get a minute.
describe('npm run client-id-secret', () => {
  it('keeps a conversation made without CLIENT_ID_SECRET reachable after the switch and a token added', async () => {
    const before = { ...as(FIRST), 'x-relay': 'before' }
    const created = await worker.fetch('/v1/conversations', { method: 'POST', headers: before })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    const message = await worker.fetch(`/v1/conversations/${id}/messages`, {
      method: 'POST',
      headers: { ...before, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock/echo', turn: { role: 'user', content: 'Remember me' } }),
    })
    expect(message.status).toBe(200)
    expect(await message.text()).toContain('event: done')

    // The relay as it is now: the same conversation, the same list, for the same token.
    const read = await worker.fetch(`/v1/conversations/${id}`, { headers: as(FIRST) })
    expect(read.status).toBe(200)
    const { conversation } = (await read.json()) as { conversation: { turns: { role: string }[] } }
    expect(conversation.turns.map((turn) => turn.role)).toEqual(['user', 'assistant'])
    const list = await worker.fetch('/v1/conversations', { headers: as(FIRST) })
    const { conversations } = (await list.json()) as { conversations: { id: string }[] }
    expect(conversations.map((c) => c.id)).toEqual([id])
    // The added token is a client of its own.
    const other = await worker.fetch(`/v1/conversations/${id}`, { headers: as(ADDED) })
    expect(other.status).toBe(404)
    await other.arrayBuffer()

    // Both relays named the token by the id a relay without a secret always gave it.
    const logs = worker.logs().join('\n')
    const expected = await historicalId([FIRST], FIRST)
    expect(logs.split(`"clientId":"${expected}"`).length - 1).toBeGreaterThanOrEqual(4)
    expect(logs).not.toContain(FIRST)
  })

  it('prints only the value on stdout, base64: and 32 bytes, and reads the tokens from stdin too', async () => {
    expect(printed.stdout).toMatch(/^base64:[\w-]{43}\n$/)
    expect(printed.stderr).toContain('wrangler secret put CLIENT_ID_SECRET')
    expect(printed.stderr).not.toContain(FIRST)
    const piped = await clientIdSecret({}, `# the relay's secrets\nRELAY_TOKENS=${FIRST}\n`)
    expect(piped.code, piped.stderr).toBe(0)
    expect(piped.stdout).toBe(printed.stdout)
    const bare = await clientIdSecret({}, `${ADDED}, ${FIRST}\n`)
    expect(bare.stdout).not.toBe(printed.stdout)
  }, 60_000)

  it('refuses a short token by its setting, no tokens at all, and a CLIENT_ID_SECRET already set', async () => {
    const short = await clientIdSecret({ RELAY_TOKENS: 'short-token' })
    expect(short.code).toBe(1)
    expect(short.stdout).toBe('')
    expect(short.stderr).toContain('RELAY_TOKENS entry 1 is shorter than 16 characters')
    expect(short.stderr).not.toContain('short-token')
    const none = await clientIdSecret({ RELAY_TOKENS: '' }, 'RELAY_TOKENS=\n')
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('no RELAY_TOKENS found')
    const kept = await clientIdSecret({
      RELAY_TOKENS: FIRST,
      CLIENT_ID_SECRET: 'an-existing-client-id-secret-0123456789',
    })
    expect(kept.code).toBe(1)
    expect(kept.stdout).toBe('')
    expect(kept.stderr).toMatch(/CLIENT_ID_SECRET is already set/)
  }, 60_000)
})
