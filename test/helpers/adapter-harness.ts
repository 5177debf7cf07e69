/**
 * What every provider's test harness builds from its adapter factory: an adapter on a replaying
 * fetch, the bodies the upstream received, one replay of a stream, and a failed call. Each
 * provider's `harness.ts` adds its fixtures and error bodies.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'vitest'
import type { Adapter, CallOptions } from '../../src/core/adapter.ts'
import type { Conversation } from '../../src/core/conversation.ts'
import { isThinkwireError } from '../../src/core/errors.ts'
import type { Event } from '../../src/core/events.ts'
import { replayFetch, type ReplayFetch, type ReplaySpec } from './replay-fetch.ts'
import { run } from './stream.ts'

/** The question every provider test asks unless it says otherwise. */
export const ask: Conversation = {
  turns: [{ role: 'user', content: 'What is the weather in Paris?' }],
}

/** The folder of `test/fixtures/<folder>/`, as a path. */
function fixtureFolder(folder: string): string {
  // A path, not a URL: a browser-like test environment replaces the global URL.
  return join(dirname(fileURLToPath(import.meta.url)), '../fixtures', folder)
}

/** Reads the recorded streams of `test/fixtures/<folder>/`. */
export function fixtures(folder: string): (name: string) => string {
  const root = fixtureFolder(folder)
  return (name) => readFileSync(join(root, name), 'utf8')
}

/** The names of the recorded streams (`.sse`) of `test/fixtures/<folder>/`, sorted. */
export function streamFixtureNames(folder: string): string[] {
  return readdirSync(fixtureFolder(folder))
    .filter((name) => name.endsWith('.sse'))
    .toSorted()
}

/** The body of the n-th request the upstream received. */
export function sentBody(replay: ReplayFetch, index = -1): Record<string, unknown> {
  const body = replay.requests.at(index)?.body
  if (typeof body !== 'object' || body === null) throw new Error('no JSON request was sent')
  return body as Record<string, unknown>
}

/** The tools of {@link adapterHarness}, for one provider's adapter factory. */
export type AdapterHarness<Options> = {
  /** An adapter whose upstream answers with `specs`, and the replaying fetch behind it. */
  setup(
    specs: ReplaySpec[] | ((request: unknown, index: number) => ReplaySpec),
    options?: Partial<Options>,
  ): { adapter: Adapter; replay: ReplayFetch }
  /** Replays `body` through a fresh adapter and returns what it streamed. */
  replayOnce(
    body: string,
    splitAt?: number[] | 'bytes' | undefined,
    callOptions?: CallOptions,
    conversation?: Conversation,
  ): Promise<{ events: Event[]; error: unknown }>
  /**
   * Asks an upstream that answers `status` with the JSON `body`: checks that nothing streamed, the
   * error is thinkwire's own and one request went out, and returns the error.
   */
  failWith(
    status: number,
    body: string,
    headers?: Record<string, string>,
  ): Promise<Error & Record<string, unknown>>
}

/** Builds a provider's harness from its adapter factory and the options every test starts from. */
export function adapterHarness<Options extends { fetch?: typeof fetch | undefined }>(
  create: (options: Options) => Adapter,
  defaults: Omit<Options, 'fetch'>,
): AdapterHarness<Options> {
  const setup: AdapterHarness<Options>['setup'] = (specs, options = {}) => {
    const replay = replayFetch(typeof specs === 'function' ? (r, i) => specs(r.body, i) : specs)
    const adapter = create({ ...defaults, fetch: replay.fetch, ...options } as Options)
    return { adapter, replay }
  }
  return {
    setup,
    async replayOnce(body, splitAt, callOptions = {}, conversation = ask) {
      const { adapter } = setup([{ body, splitAt }])
      return run(adapter.stream(conversation, callOptions))
    },
    async failWith(status, body, headers = {}) {
      const { adapter, replay } = setup([
        { status, body, headers: { 'content-type': 'application/json', ...headers } },
      ])
      const { events, error } = await run(adapter.stream(ask))
      expect(events).toEqual([])
      expect(isThinkwireError(error)).toBe(true)
      expect(replay.requests).toHaveLength(1)
      return error as Error & Record<string, unknown>
    },
  }
}
