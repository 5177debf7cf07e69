import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/**
 * Where the relay of `npm start` is, for the demo's dev server (`vite demo`) to proxy `/v1` to:
 * `npm start` records the address it passes to `wrangler dev`, and `demo/vite.config.ts` reads it.
 */

/** The relay's address when `npm start` has recorded none. */
export const DEFAULT_DEV_RELAY = 'http://127.0.0.1:8787'

/**
 * The record: `node_modules/.cache/thinkwire/dev-relay.json`, or the file
 * `THINKWIRE_DEV_RELAY_FILE` names (a test's, so a developer's record stays as it was).
 */
export function devRelayFile(): string {
  const file = process.env['THINKWIRE_DEV_RELAY_FILE']
  if (file !== undefined && file !== '') return resolve(file)
  return join(import.meta.dirname, '../node_modules/.cache/thinkwire/dev-relay.json')
}

/** Records where the relay listens. */
export function writeDevRelay(url: string): void {
  const file = devRelayFile()
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, `${JSON.stringify({ url })}\n`)
}

/** Where the last `npm start` serves the relay, or {@link DEFAULT_DEV_RELAY}. */
export function readDevRelay(): string {
  let record: unknown
  try {
    record = JSON.parse(readFileSync(devRelayFile(), 'utf8'))
  } catch {
    return DEFAULT_DEV_RELAY
  }
  const url: unknown =
    typeof record === 'object' && record !== null ? Reflect.get(record, 'url') : undefined
  return typeof url === 'string' && /^https?:\/\/[^/\s]+$/.test(url) ? url : DEFAULT_DEV_RELAY
}
