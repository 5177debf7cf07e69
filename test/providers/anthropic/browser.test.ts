// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { anthropic } from '../../../src/providers/anthropic/index.ts'
import { replayFetch } from '../../helpers/replay-fetch.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { ask, fixture } from './harness.ts'

describe('anthropic in a browser page', () => {
  it('streams a turn when the caller allows browser use, and marks the request as such', async () => {
    expect(typeof window.document).toBe('object')
    const replay = replayFetch([{ body: fixture('thinking-then-tool.sse') }])
    const adapter = anthropic({
      apiKey: 'sk-ant-user-key-0123456789',
      model: 'claude-sonnet-5',
      fetch: replay.fetch,
      dangerouslyAllowBrowser: true,
    })
    const { events, error } = await run(adapter.stream(ask))
    expect(error).toBeUndefined()
    expect(doneTurn(events).toolCalls).toHaveLength(1)
    expect(replay.requests[0]!.headers['anthropic-dangerous-direct-browser-access']).toBe('true')
  })

  it('refuses to start without the caller allowing browser use', () => {
    expect(() =>
      anthropic({ apiKey: 'sk-ant-user-key-0123456789', model: 'claude-sonnet-5' }),
    ).toThrow(expect.objectContaining({ kind: 'invalid-request' }))
  })
})
