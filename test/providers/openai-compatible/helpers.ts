import { readFileSync } from 'node:fs'
import {
  openaiCompatible,
  type OpenAICompatibleOptions,
} from '../../../src/providers/openai-compatible/index.ts'
import { replayFetch, type ReplayFetch } from '../../helpers/replay-fetch.ts'
export { collect, failure, doneTurn } from '../../helpers/stream.ts'

/** A fixture in the Chat Completions wire format, as text. */
export function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/openai-compatible/${name}`, import.meta.url), 'utf8')
}

/** An adapter on a server preset (or any options) whose upstream answers with `specs`. */
export function compatibleWith(
  specs: Parameters<typeof replayFetch>[0],
  options: Omit<OpenAICompatibleOptions, 'fetch'>,
) {
  const replay: ReplayFetch = replayFetch(specs)
  const adapter = openaiCompatible({ ...options, fetch: replay.fetch })
  return { adapter, replay }
}
