import { describe, expect, it } from 'vitest'
import { run } from '../../helpers/stream.ts'
import { pretendToBeABrowser } from '../../helpers/browser.ts'
import { ask, errorBody, failWith, setup } from './harness.ts'

const KEY = 'sk-ant-test-key-0123456789'

describe('anthropic errors', () => {
  it('maps a 400 to invalid-request, not retryable', async () => {
    const error = await failWith(
      400,
      errorBody('invalid_request_error', 'messages: at least one message is required'),
    )
    expect(error).toMatchObject({
      kind: 'invalid-request',
      retryable: false,
      status: 400,
      provider: 'anthropic',
    })
    expect(error.message).toContain('at least one message is required')
  })

  it('maps a too-long prompt to context-length', async () => {
    const error = await failWith(
      400,
      errorBody('invalid_request_error', 'prompt is too long: 212345 tokens > 200000 maximum'),
    )
    expect(error).toMatchObject({ kind: 'context-length', retryable: false, status: 400 })
  })

  it('maps 401 and 403 to auth, and never puts the key in the message', async () => {
    const unauthorized = await failWith(
      401,
      errorBody('authentication_error', `invalid x-api-key ${KEY}`),
    )
    expect(unauthorized).toMatchObject({ kind: 'auth', retryable: false, status: 401 })
    expect(unauthorized.message).not.toContain(KEY)
    const forbidden = await failWith(403, errorBody('permission_error', 'no access to this model'))
    expect(forbidden).toMatchObject({ kind: 'auth', status: 403 })
  })

  it('maps a 429 to a retryable rate-limit with retry-after in milliseconds', async () => {
    const error = await failWith(
      429,
      errorBody('rate_limit_error', 'Number of requests has exceeded your rate limit'),
      {
        'retry-after': '7',
      },
    )
    expect(error).toMatchObject({
      kind: 'rate-limit',
      retryable: true,
      retryAfterMs: 7000,
      status: 429,
    })
  })

  it('maps a spend-cap 429 without retry-after to a rate-limit that is not retryable', async () => {
    const body = JSON.stringify({
      type: 'error',
      error: {
        type: 'rate_limit_error',
        message: 'Spend limit reached',
        details: { error_code: 'enforced_spend_limit_reached' },
      },
    })
    const error = await failWith(429, body)
    expect(error).toMatchObject({ kind: 'rate-limit', retryable: false })
  })

  it('maps a 500 to a retryable server error', async () => {
    const error = await failWith(500, errorBody('api_error', 'Internal server error'))
    expect(error).toMatchObject({ kind: 'server', retryable: true, status: 500 })
  })

  it('maps a 529 to overloaded', async () => {
    const error = await failWith(529, errorBody('overloaded_error', 'Overloaded'))
    expect(error).toMatchObject({ kind: 'overloaded', retryable: true, status: 529 })
  })

  it('maps a refused connection to network', async () => {
    const { adapter } = setup([{ body: '', refuse: true }])
    const { error } = await run(adapter.stream(ask))
    expect(error).toMatchObject({ kind: 'network', retryable: true, provider: 'anthropic' })
  })

  it('maps a connection reset mid-stream to network, after the events that arrived', async () => {
    const body = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_r","type":"message","role":"assistant","model":"claude-sonnet-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n',
    ].join('')
    const { adapter } = setup([{ body: body + body, cutAfterBytes: body.length }])
    const { events, error } = await run(adapter.stream(ask))
    expect(events).toEqual([{ type: 'text', text: 'Hel' }])
    expect(error).toMatchObject({ kind: 'network' })
  })

  it('maps an abort by the caller to aborted', async () => {
    const { adapter } = setup([
      { body: 'event: ping\ndata: {"type":"ping"}\n\n', stallAfterBytes: 0 },
    ])
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 10)
    const { error } = await run(adapter.stream(ask, { signal: controller.signal }))
    expect(error).toMatchObject({ kind: 'aborted', retryable: false })
  })

  it('reports a client that refuses to run in a browser page as a ThinkwireError', async () => {
    const restore = pretendToBeABrowser()
    try {
      const { anthropic } = await import('../../../src/providers/anthropic/index.ts')
      expect(() => anthropic({ apiKey: KEY, model: 'claude-sonnet-5' })).toThrow(
        expect.objectContaining({ kind: 'invalid-request' }),
      )
      expect(() =>
        anthropic({ apiKey: KEY, model: 'claude-sonnet-5', dangerouslyAllowBrowser: true }),
      ).not.toThrow()
    } finally {
      restore()
    }
  })
})
