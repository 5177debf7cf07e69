import { readFileSync } from 'node:fs'
import { gemini } from '../../../src/providers/gemini/index.ts'
import { replayFetch, type ReplayFetch, type ReplaySpec } from '../../helpers/replay-fetch.ts'
export { collect, failure, doneTurn } from '../../helpers/stream.ts'

/** A recorded-format Gemini fixture, as text. */
export function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/gemini/${name}`, import.meta.url), 'utf8')
}

/** A Gemini adapter whose upstream answers with `specs`, and the replaying fetch behind it. */
export function geminiWith(
  specs: ReplaySpec[] | Parameters<typeof replayFetch>[0],
  model = 'gemini-3-flash-preview',
) {
  const replay: ReplayFetch = replayFetch(specs)
  const adapter = gemini({
    apiKey: 'AIzaTestKeyThatIsNotReal000000000',
    model,
    fetch: replay.fetch,
    baseURL: 'https://gemini.test',
  })
  return { adapter, replay }
}
