/**
 * `npm run client-id-secret`: the `CLIENT_ID_SECRET` for a relay that ran with `RELAY_TOKENS` but
 * without one. Such a relay made each token's client id with a key derived from the whole token
 * list; the value printed is that key (`base64:...`), so with it stored as `CLIENT_ID_SECRET`
 * every token keeps its id (its conversations, its spend), now and after tokens are added or
 * removed.
 *
 * The current `RELAY_TOKENS` (exactly as the relay has them) is read from the environment, else
 * from stdin when something is piped in (the list, or `RELAY_TOKENS=...` lines), else from
 * `.dev.vars`. Only the value goes to stdout:
 *
 *   RELAY_TOKENS="$TOKENS" npm run -s client-id-secret | npx wrangler secret put CLIENT_ID_SECRET
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseEnv } from 'node:util'
import { deriveClientIdKey } from '../src/relay/auth.ts'
import { relayTokens } from '../worker/client-auth.ts'
import { BASE64_PREFIX } from '../worker/settings.ts'

const root = resolve(import.meta.dirname, '..')

/** Where `RELAY_TOKENS` (and any `CLIENT_ID_SECRET` already set) are read from, and its name. */
async function source(): Promise<{ env: Record<string, string | undefined>; from: string }> {
  if ((process.env['RELAY_TOKENS'] ?? '').trim() !== '') {
    return { env: process.env, from: 'the environment' }
  }
  if (process.stdin.isTTY !== true) {
    let text = ''
    for await (const chunk of process.stdin) text += String(chunk)
    if (text.trim() !== '') {
      const lines = /^\s*RELAY_TOKENS\s*=/m.test(text) ? parseEnv(text) : { RELAY_TOKENS: text }
      return { env: lines, from: 'stdin' }
    }
  }
  const devVars = join(root, '.dev.vars')
  if (existsSync(devVars))
    return { env: parseEnv(readFileSync(devVars, 'utf8')), from: '.dev.vars' }
  return { env: {}, from: 'nowhere' }
}

function fail(message: string): never {
  console.error(`client-id-secret: ${message}`)
  process.exit(1)
}

const { env, from } = await source()
let tokens: string[]
try {
  // The Worker's own reading: the same split, trim and rules, so the same list.
  tokens = relayTokens(env)
} catch (error) {
  if (error instanceof TypeError) fail(`${error.message} (read from ${from})`)
  throw error
}
if (tokens.length === 0) {
  fail(
    'no RELAY_TOKENS found: give the relay’s current tokens as RELAY_TOKENS=... in the ' +
      'environment, on stdin, or in .dev.vars',
  )
}
if ((env['CLIENT_ID_SECRET'] ?? '').trim() !== '') {
  fail(
    `CLIENT_ID_SECRET is already set in ${from}: the ids already come from it, and any other ` +
      'value would move them all; keep it',
  )
}
const key = await deriveClientIdKey(tokens)
process.stdout.write(`${BASE64_PREFIX}${Buffer.from(key).toString('base64url')}\n`)
console.error(
  `client-id-secret: made from the ${tokens.length} RELAY_TOKENS in ${from}. Store it with ` +
    '`npx wrangler secret put CLIENT_ID_SECRET` (and in .dev.vars for npm start): every token ' +
    'keeps the id it had, also after tokens are added or removed. Keep it as secret as the tokens.',
)
