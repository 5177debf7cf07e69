import { describe, expect, it } from 'vitest'
import { isThinkwireError } from '../../../src/core/errors.ts'
import { ask, failWith, failure, fixture, run, setup, TEST_KEY } from './harness.ts'

const rateLimited = fixture('rate-limit-429.json')

describe('gemini interactions errors', () => {
  it('maps a 429 to a retryable rate-limit with the RetryInfo delay, after one request', async () => {
    const error = await failWith(429, rateLimited)
    expect(error).toMatchObject({
      kind: 'rate-limit',
      status: 429,
      retryable: true,
      retryAfterMs: 12_500,
      provider: 'gemini-interactions',
    })
    expect(error.message).toBe(
      'gemini-interactions: You exceeded your current quota of requests per minute. Please retry in 12.5s. (HTTP 429 rate_limit_exceeded)',
    )
  })

  it('reads retry-after when the body says no delay', async () => {
    const body = JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'Slow down.' } })
    const error = await failWith(429, body, { 'retry-after': '7' })
    expect(error).toMatchObject({ kind: 'rate-limit', retryAfterMs: 7000 })
  })

  it('does not call a daily quota retryable', async () => {
    const body = JSON.stringify({ error: { code: 'quota_exceeded', message: 'Daily quota.' } })
    expect(await failWith(429, body)).toMatchObject({ kind: 'rate-limit', retryable: false })
  })

  it.each([
    [400, 'invalid_request', 'invalid-request', false],
    [401, 'authentication', 'auth', false],
    [403, 'permission_denied', 'auth', false],
    [404, 'model_not_found', 'invalid-request', false],
    [500, 'api_error', 'server', true],
    [503, 'unavailable', 'overloaded', true],
    [504, 'deadline_exceeded', 'timeout', true],
  ] as const)('maps HTTP %i (%s) to %s', async (status, code, kind, retryable) => {
    const body = JSON.stringify({ error: { code, message: `fault ${status}` } })
    expect(await failWith(status, body)).toMatchObject({ kind, status, retryable })
  })

  it('names the context window for a 400 that says the input is too long', async () => {
    const body = JSON.stringify({
      error: {
        code: 'invalid_request',
        message: 'The input token count exceeds the maximum number of tokens allowed.',
      },
    })
    expect(await failWith(400, body)).toMatchObject({ kind: 'context-length' })
  })

  it('maps an error body that is not JSON (a proxy page) by its status', async () => {
    const { adapter } = setup([
      { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>Bad Gateway</html>' },
    ])
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'server', status: 502, retryable: true })
  })

  it('fails with the error of a JSON error body sent in place of the stream', async () => {
    const body = JSON.stringify({ error: { code: 'unavailable', message: 'Try later.' } }, null, 2)
    const { adapter } = setup([{ body: `\n${body}`, splitAt: 'bytes' }])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([])
    expect(error).toMatchObject({ kind: 'overloaded', status: 503 })
  })

  it('fails with network when the connection is refused', async () => {
    const { adapter, replay } = setup([{ body: '', refuse: true }])
    const { error } = await failure(adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'network', retryable: true })
    expect(replay.requests).toHaveLength(1)
  })

  it('fails with network when the connection resets mid-stream, after what came before', async () => {
    const body = fixture('thinking-then-text.sse')
    const { adapter } = setup([{ body, cutAfterBytes: body.indexOf('step.stop') }])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events.length).toBeGreaterThan(0)
    expect(events.some((e) => e.type === 'done')).toBe(false)
    expect(error).toMatchObject({ kind: 'network' })
  })

  it('sends one request and no retry of its own', async () => {
    const { adapter, replay } = setup([
      { status: 503, headers: { 'content-type': 'application/json' }, body: '{"error":{}}' },
    ])
    await run(adapter.stream(ask))
    expect(replay.requests).toHaveLength(1)
  })

  it('aborts the request when the signal aborts mid-stream', async () => {
    const body = fixture('thinking-then-text.sse')
    const { adapter, replay } = setup([{ body, stallAfterBytes: body.indexOf('step.stop') }])
    const controller = new AbortController()
    const seen: string[] = []
    const { error } = await run(
      (async function* () {
        for await (const event of adapter.stream(ask, { signal: controller.signal })) {
          seen.push(event.type)
          yield event
          controller.abort()
        }
      })(),
    )
    expect(seen).toEqual(['thinking'])
    expect(isThinkwireError(error) && error.kind).toBe('aborted')
    expect(replay.aborted()).toBe(true)
  })

  it('never puts the key in a URL or a message', async () => {
    const error = await failWith(
      400,
      JSON.stringify({ error: { code: 'invalid_request', message: `bad key ${TEST_KEY}` } }),
    )
    expect(error.message).not.toContain(TEST_KEY)
    const { adapter, replay } = setup([{ body: fixture('stored-interaction.sse') }])
    await run(adapter.stream(ask))
    expect(replay.requests[0]!.url).toBe('https://interactions.test/v1beta/interactions')
    expect(replay.requests[0]!.headers['x-goog-api-key']).toBe(TEST_KEY)
  })
})
