// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { openai } from '../../../src/providers/openai/index.ts'
import { replayFetch } from '../../helpers/replay-fetch.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { ask, fixture } from './harness.ts'

describe('openai in a browser page', () => {
  it('streams a turn when the caller allows browser use', async () => {
    expect(typeof window.document).toBe('object')
    const replay = replayFetch([{ body: fixture('reasoning-then-function-calls.sse') }])
    const adapter = openai({
      apiKey: 'sk-user-key-0123456789',
      model: 'gpt-5.4',
      fetch: replay.fetch,
      dangerouslyAllowBrowser: true,
    })
    const { events, error } = await run(adapter.stream(ask))
    expect(error).toBeUndefined()
    expect(doneTurn(events).toolCalls).toHaveLength(2)
    expect(replay.requests[0]!.headers['authorization']).toBe('Bearer sk-user-key-0123456789')
  })

  it('refuses to start without the caller allowing browser use', () => {
    expect(() => openai({ apiKey: 'sk-user-key-0123456789', model: 'gpt-5.4' })).toThrow(
      expect.objectContaining({ kind: 'invalid-request' }),
    )
  })
})
