import { describe, expect, it } from 'vitest'
import { openai } from '../../../src/providers/openai/index.ts'
import { run } from '../../helpers/stream.ts'
import { pretendToBeABrowser } from '../../helpers/browser.ts'
import { ask, errorBody, failWith, setup } from './harness.ts'

const KEY = 'sk-test-key-0123456789'

describe('openai errors', () => {
  it('maps a 400 to invalid-request, and a context overflow to context-length', async () => {
    const bad = await failWith(
      400,
      errorBody('unsupported_value', "Unsupported value: 'reasoning.effort'"),
    )
    expect(bad).toMatchObject({
      kind: 'invalid-request',
      retryable: false,
      status: 400,
      provider: 'openai',
    })
    const long = await failWith(
      400,
      errorBody('context_length_exceeded', 'Your input exceeds the context window of this model.'),
    )
    expect(long).toMatchObject({ kind: 'context-length', status: 400 })
  })

  it('maps a 401 to auth and never puts the key in the message', async () => {
    const error = await failWith(
      401,
      errorBody('invalid_api_key', `Incorrect API key provided: ${KEY}.`, 'invalid_request_error'),
    )
    expect(error).toMatchObject({ kind: 'auth', retryable: false, status: 401 })
    expect(error.message).not.toContain(KEY)
  })

  it('maps a 429 to a retryable rate-limit with retry-after, and insufficient_quota to one that is not', async () => {
    const limited = await failWith(
      429,
      errorBody('rate_limit_exceeded', 'Rate limit reached', 'requests'),
      { 'retry-after-ms': '1500' },
    )
    expect(limited).toMatchObject({
      kind: 'rate-limit',
      retryable: true,
      retryAfterMs: 1500,
      status: 429,
    })
    const quota = await failWith(
      429,
      errorBody('insufficient_quota', 'You exceeded your current quota', 'insufficient_quota'),
    )
    expect(quota).toMatchObject({ kind: 'rate-limit', retryable: false })
  })

  it('maps a 500 to server and a 503 to overloaded', async () => {
    expect(
      await failWith(500, errorBody('server_error', 'The server had an error', 'server_error')),
    ).toMatchObject({ kind: 'server', retryable: true, status: 500 })
    expect(
      await failWith(503, errorBody(null, 'The engine is currently overloaded', 'server_error')),
    ).toMatchObject({ kind: 'overloaded', retryable: true, status: 503 })
  })

  it('maps a refused connection to network and an abort to aborted', async () => {
    const refused = setup([{ body: '', refuse: true }])
    expect((await run(refused.adapter.stream(ask))).error).toMatchObject({
      kind: 'network',
      provider: 'openai',
    })
    const stalled = setup([
      { body: 'event: keepalive\ndata: {"type":"keepalive"}\n\n', stallAfterBytes: 0 },
    ])
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 10)
    expect(
      (await run(stalled.adapter.stream(ask, { signal: controller.signal }))).error,
    ).toMatchObject({ kind: 'aborted' })
  })

  it('fails with timeout when the upstream goes silent for longer than idleTimeoutMs', async () => {
    const { adapter, replay } = setup([
      { body: 'event: keepalive\ndata: {"type":"keepalive"}\n\n', stallAfterBytes: 0 },
    ])
    const { error } = await run(adapter.stream(ask, { idleTimeoutMs: 20 }))
    expect(error).toMatchObject({ kind: 'timeout', retryable: true })
    await expect.poll(() => replay.aborted()).toBe(true)
  })

  it('reports a client that refuses to run in a browser page as a ThinkwireError', () => {
    const restore = pretendToBeABrowser()
    try {
      expect(() => openai({ apiKey: KEY, model: 'gpt-5.4' })).toThrow(
        expect.objectContaining({ kind: 'invalid-request' }),
      )
      expect(() =>
        openai({ apiKey: KEY, model: 'gpt-5.4', dangerouslyAllowBrowser: true }),
      ).not.toThrow()
    } finally {
      restore()
    }
  })
})
