import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { workerAliases } from '../helpers/worker-aliases.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

// A relay that ran with RELAY_TOKENS and no CLIENT_ID_SECRET moves to the secret that
// `npm run client-id-secret` prints: every conversation made before stays its client's, also
// after a token is added.

const root = resolve(import.meta.dirname, '../..')
const FIRST = 'token-first-client-0123456789'
const ADDED = 'token-added-later-0123456789'

type Run = { code: number | null; stdout: string; stderr: string }

/**
 * `npm run client-id-secret` as package.json runs it (`node --import tsx`), with these variables
 * and this stdin (none: a closed, empty one).
 */
function clientIdSecret(env: Record<string, string>, stdin = ''): Promise<Run> {
  return run(['--import', 'tsx', 'scripts/client-id-secret.ts'], env, stdin)
}

/**
 * The same script bundled for plain Node, for the runs after the first: tsx costs a run about
 * 0.8 s of CPU, the bundle about 0.15 s. The bundle lives outside the repository, so it could not
 * read a `.dev.vars` even if a run fell back to one.
 */
let bundled: string | undefined

async function bundleScript(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'thinkwire-client-id-secret-'))
  const outfile = join(dir, 'client-id-secret.mjs')
  await build({
    entryPoints: [join(root, 'scripts/client-id-secret.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // The worker/ files it imports name thinkwire as the Worker does (wrangler.toml's [alias]).
    alias: workerAliases(),
    logLevel: 'error',
  })
  return outfile
}

/** The bundled script (see {@link bundled}), with these variables and this stdin. */
function bundledScript(env: Record<string, string>, stdin = ''): Promise<Run> {
  return run([bundled!], env, stdin)
}

function run(args: string[], env: Record<string, string>, stdin: string): Promise<Run> {
  return new Promise((done, reject) => {
    const child = execFile(
      process.execPath,
      args,
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
  ;[printed, bundled] = await Promise.all([clientIdSecret({ RELAY_TOKENS: FIRST }), bundleScript()])
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
  if (bundled !== undefined) await rm(resolve(bundled, '..'), { recursive: true, force: true })
})

const as = (token: string) => ({ authorization: `Bearer ${token}` })

// The tests that run the script start a Node process for each run: a second apiece on a busy
// machine, so they get a minute. The first run (beforeAll) is `npm run client-id-secret` itself;
// the others run the same script bundled, side by side.
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
    const [piped, bare] = await Promise.all([
      bundledScript({}, `# the relay's secrets\nRELAY_TOKENS=${FIRST}\n`),
      bundledScript({}, `${ADDED}, ${FIRST}\n`),
    ])
    expect(piped.code, piped.stderr).toBe(0)
    expect(piped.stdout).toBe(printed.stdout)
    expect(bare.stdout).not.toBe(printed.stdout)
  }, 60_000)

  it('refuses a short token by its setting, no tokens at all, and a CLIENT_ID_SECRET already set', async () => {
    const [short, none, kept] = await Promise.all([
      bundledScript({ RELAY_TOKENS: 'short-token' }),
      bundledScript({ RELAY_TOKENS: '' }, 'RELAY_TOKENS=\n'),
      bundledScript({
        RELAY_TOKENS: FIRST,
        CLIENT_ID_SECRET: 'an-existing-client-id-secret-0123456789',
      }),
    ])
    expect(short.code).toBe(1)
    expect(short.stdout).toBe('')
    expect(short.stderr).toContain('RELAY_TOKENS entry 1 is shorter than 16 characters')
    expect(short.stderr).not.toContain('short-token')
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('no RELAY_TOKENS found')
    expect(kept.code).toBe(1)
    expect(kept.stdout).toBe('')
    expect(kept.stderr).toMatch(/CLIENT_ID_SECRET is already set/)
  }, 60_000)
})
