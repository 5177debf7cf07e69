/**
 * Runs every contract check for every adapter that can run in a runtime, all at once, and reports
 * each outcome. Bundled for workerd (its `default` export is the Worker) and for a browser page
 * (which calls `runContract`); Node imports it as it is.
 */
import { adapters } from './adapters.ts'
import { describeError, within } from './assert.ts'
import { answerEvents, checks, foreignTurns, type CheckName, type RuntimeName } from './checks.ts'

/** The outcome of one check for one adapter. */
export type CheckResult = {
  adapter: string
  check: CheckName
  ok: boolean
  /** Why it failed. */
  error?: string | undefined
}

/** What a run is asked to do. */
export type RunRequest = {
  runtime: RuntimeName
  /** Each adapter's answer events in Node, for `streams the same events as in Node`. */
  baseline?: Record<string, unknown> | undefined
}

/** No single check may take longer than this; a hung stream fails its check, not the run. */
const CHECK_TIMEOUT_MS = 15_000

/** The checks that run in `runtime`: comparing with Node makes sense only elsewhere. */
export function checksFor(runtime: RuntimeName): typeof checks {
  return checks.filter(
    (check) => runtime !== 'node' || check.name !== 'streams the same events as in Node',
  )
}

/** Every check for every adapter runnable in the runtime, run concurrently. */
export async function runContract(request: RunRequest): Promise<CheckResult[]> {
  const entries = adapters
  const context = { turns: foreignTurns(entries), baseline: request.baseline }
  const runs = entries.flatMap((entry) =>
    checksFor(request.runtime).map(async (check): Promise<CheckResult> => {
      const base = { adapter: entry.name, check: check.name }
      try {
        await within(check.run(entry, context), CHECK_TIMEOUT_MS, check.name)
        return { ...base, ok: true }
      } catch (error) {
        return { ...base, ok: false, error: describeError(error) }
      }
    }),
  )
  return Promise.all(runs)
}

/** Each adapter's answer events where this runs, by adapter name. */
export async function baselineEvents(): Promise<Record<string, unknown>> {
  // An adapter that fails here fails its comparison, not the whole run.
  const events = await Promise.all(
    adapters.map((entry) =>
      answerEvents(entry).catch((error: unknown) => ({ failed: describeError(error) })),
    ),
  )
  return Object.fromEntries(adapters.map((entry, i) => [entry.name, events[i]]))
}

/** The Worker: `POST` a {@link RunRequest}, get the results as JSON. */
export default {
  async fetch(request: Request): Promise<Response> {
    const run = (await request.json()) as RunRequest
    return Response.json(await runContract(run))
  },
}
