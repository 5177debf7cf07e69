/**
 * Errors of `/v1/messages` in Anthropic's shape: the mapping from the relay's statuses, then every
 * refusal the endpoint makes, on the wire and as `@anthropic-ai/sdk` raises it, and the relay token
 * read from `x-api-key` as well as `authorization: Bearer`.
 */
import Anthropic from '@anthropic-ai/sdk'
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages'
import { describe, expect, it } from 'vitest'
import { endless, refusalProviders, refusalRelays } from '../refusal-relays.ts'
import {
  anthropicStatus,
  messagesErrorResponse,
} from '../../../src/relay/anthropic-messages/index.ts'
import { createRelay, refuseRequest, type Relay } from '../../../src/relay/index.ts'
import { unchanged, withBody, withHeaders, type Rewrite } from '../completions/openai-errors.ts'
import {
  expectMessagesError,
  expectRaised,
  expectStreamError,
  expectStreamRaised,
  type ExpectedMessagesError,
} from './anthropic-errors.ts'

describe('anthropicStatus', () => {
  it.each([
    [400, 'invalid_request_error', 400],
    [405, 'invalid_request_error', 405],
    [408, 'invalid_request_error', 408],
    [415, 'invalid_request_error', 415],
    [499, 'invalid_request_error', 499],
    [401, 'authentication_error', 401],
    [403, 'permission_error', 403],
    [404, 'not_found_error', 404],
    [413, 'request_too_large', 413],
    [429, 'rate_limit_error', 429],
    [500, 'api_error', 500],
    [502, 'api_error', 502],
    [503, 'overloaded_error', 529],
    [504, 'timeout_error', 504],
  ])('%i → %s with %i', (status, type, sent) => {
    expect(anthropicStatus(status)).toEqual({ type, status: sent })
  })

  it('answers JSON whatever headers are passed, with the headers the caller passes', async () => {
    const response = messagesErrorResponse(
      429,
      'rate-limit',
      'slow down',
      {},
      {
        'retry-after': '3',
        'content-type': 'text/html',
      },
    )
    expect(response.status).toBe(429)
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(response.headers.get('retry-after')).toBe('3')
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow down' },
    })
  })
})

const TOKEN = 'token-messages-errors-01'
const relays = refusalRelays(TOKEN)

/** The Anthropic SDK on `relay`, each request changed by `rewrite` on its way. */
function client(relay: Relay, rewrite: Rewrite = unchanged, apiKey = TOKEN): Anthropic {
  return new Anthropic({
    apiKey,
    baseURL: 'http://relay.test',
    maxRetries: 0,
    fetch: (input, init) => relay.fetch(rewrite(new Request(input, init))),
  })
}

/** The request the SDK would send for `params` (its key as a bearer token), changed by `rewrite`. */
function sdkRequest(params: object, rewrite: Rewrite = unchanged, apiKey = TOKEN): Request {
  return rewrite(
    new Request('http://relay.test/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(params),
    }),
  )
}

const question = (model = 'mock/echo', content = 'Hi'): MessageCreateParamsNonStreaming => ({
  model,
  max_tokens: 1024,
  messages: [{ role: 'user', content }],
})

type ErrorCase = ExpectedMessagesError & {
  relay: Relay
  params: MessageCreateParamsNonStreaming
  rewrite?: Rewrite | undefined
  apiKey?: string | undefined
}

const invalid = { type: 'invalid_request_error' }
const CASES: Record<string, ErrorCase> = {
  'a body that is not JSON': {
    relay: relays.open,
    params: question(),
    rewrite: withBody('{"model":'),
    status: 400,
    ...invalid,
    raises: Anthropic.BadRequestError,
  },
  'a body that is not a JSON object': {
    relay: relays.open,
    params: question(),
    rewrite: withBody('[1]'),
    status: 400,
    ...invalid,
    raises: Anthropic.BadRequestError,
  },
  'a content-type other than JSON': {
    relay: relays.open,
    params: question(),
    rewrite: withHeaders({ 'content-type': 'text/plain' }),
    status: 415,
    ...invalid,
    raises: Anthropic.APIError,
  },
  'a body over the size limit': {
    relay: relays.open,
    params: question('mock/echo', 'x'.repeat(5000)),
    status: 413,
    type: 'request_too_large',
    raises: Anthropic.ContentTooLargeError,
  },
  'a body that does not arrive in time': {
    relay: relays.open,
    params: question(),
    rewrite: (request) => withBody(endless())(request),
    status: 408,
    ...invalid,
    raises: Anthropic.RequestTimeoutError,
  },
  'a model the relay does not know': {
    relay: relays.open,
    params: question('mock/nothing'),
    status: 404,
    type: 'not_found_error',
    raises: Anthropic.NotFoundError,
  },
  'a model the allowlist leaves out': {
    relay: relays.filtered,
    params: question('mock/hidden'),
    status: 404,
    type: 'not_found_error',
    raises: Anthropic.NotFoundError,
  },
  'a model whose provider cannot start': {
    relay: relays.open,
    params: question('broken/m'),
    status: 502,
    type: 'api_error',
    raises: Anthropic.InternalServerError,
  },
  'a field out of range': {
    relay: relays.open,
    params: { ...question(), temperature: 3 } as MessageCreateParamsNonStreaming,
    status: 400,
    ...invalid,
    raises: Anthropic.BadRequestError,
  },
  'a field of the relay’s own checks, named as Anthropic names it': {
    relay: relays.open,
    params: question('mock/echo', ''),
    status: 400,
    ...invalid,
    raises: Anthropic.BadRequestError,
  },
  'a field that is not part of the Messages API': {
    relay: relays.open,
    params: { ...question(), base_url: 'http://evil.test' } as MessageCreateParamsNonStreaming,
    status: 400,
    ...invalid,
    raises: Anthropic.BadRequestError,
  },
  'a request without max_tokens': {
    relay: relays.open,
    params: { model: 'mock/echo', messages: [{ role: 'user', content: 'Hi' }] } as never,
    status: 400,
    ...invalid,
    raises: Anthropic.BadRequestError,
  },
  'a token the relay does not know': {
    relay: relays.open,
    params: question(),
    apiKey: 'wrong-token-0123456789',
    status: 401,
    type: 'authentication_error',
    raises: Anthropic.AuthenticationError,
    headers: { 'www-authenticate': 'Bearer' },
  },
  'an origin the relay does not allow': {
    relay: relays.open,
    params: question(),
    rewrite: withHeaders({ origin: 'https://evil.test' }),
    status: 403,
    type: 'permission_error',
    raises: Anthropic.PermissionDeniedError,
  },
  'a method other than POST': {
    relay: relays.open,
    params: question(),
    rewrite: withBody(null, 'GET'),
    status: 405,
    ...invalid,
    raises: Anthropic.APIError,
    headers: { allow: 'POST, OPTIONS' },
  },
  'a client over its rate limit': {
    relay: relays.rated,
    params: question(),
    status: 429,
    type: 'rate_limit_error',
    raises: Anthropic.RateLimitError,
    headers: { 'retry-after': '3' },
  },
  'a client over its budget': {
    relay: relays.budgeted,
    params: question(),
    status: 429,
    type: 'rate_limit_error',
    raises: Anthropic.RateLimitError,
    headers: { 'retry-after': '7200' },
  },
  'a rate limiter that is down': {
    relay: relays.limiterDown,
    params: question(),
    status: 529,
    type: 'overloaded_error',
    raises: Anthropic.OverloadedError,
  },
  'a relay whose own setup fails': {
    relay: relays.faulty,
    params: question(),
    status: 500,
    type: 'api_error',
    raises: Anthropic.InternalServerError,
  },
  'a provider over its rate limit': {
    relay: relays.open,
    params: question('mock/rate-limit'),
    status: 429,
    type: 'rate_limit_error',
    raises: Anthropic.RateLimitError,
    headers: { 'retry-after': '2' },
  },
  'a conversation too long for the model': {
    relay: relays.open,
    params: question('mock/context-length'),
    status: 400,
    ...invalid,
    raises: Anthropic.BadRequestError,
  },
  'a provider that refuses the relay’s key': {
    relay: relays.open,
    params: question('mock/auth'),
    status: 502,
    type: 'api_error',
    raises: Anthropic.InternalServerError,
  },
  'a provider failing before its first event': {
    relay: relays.open,
    params: { ...question('mock/server'), stream: true } as never,
    status: 502,
    type: 'api_error',
    raises: Anthropic.InternalServerError,
  },
  'a provider that is overloaded': {
    relay: relays.open,
    params: question('mock/overloaded'),
    status: 529,
    type: 'overloaded_error',
    raises: Anthropic.OverloadedError,
  },
  'a provider that times out': {
    relay: relays.open,
    params: question('mock/timeout'),
    status: 504,
    type: 'timeout_error',
    raises: Anthropic.GatewayTimeoutError,
  },
  'a provider silent past the idle timeout, streamed': {
    relay: relays.open,
    params: { ...question('mock/stall'), stream: true } as never,
    status: 504,
    type: 'timeout_error',
    raises: Anthropic.GatewayTimeoutError,
  },
  'a provider silent past the idle timeout, not streamed': {
    relay: relays.open,
    params: question('mock/stall'),
    status: 504,
    type: 'timeout_error',
    raises: Anthropic.GatewayTimeoutError,
  },
}

describe('every refusal of /v1/messages', () => {
  it.each(Object.entries(CASES))(
    'answers %s in Anthropic’s error shape, which the SDK raises as its typed error',
    async (_, c) => {
      const response = await c.relay.fetch(sdkRequest(c.params, c.rewrite, c.apiKey))
      const body = await expectMessagesError(response, c)
      const sdk = client(c.relay, c.rewrite, c.apiKey)
      await expectRaised(() => sdk.messages.create(c.params), c, body)
    },
  )

  it('names the field at fault in its message, as Anthropic names it', async () => {
    const empty = await relays.open.fetch(sdkRequest(question('mock/echo', '')))
    expect((await empty.json()) as unknown).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'messages[0].content must not be empty' },
    })
  })

  it.each([
    ['a provider failing after its first event', 'mock/fail-later', 'api_error'],
    [
      'a provider silent past the idle timeout after its first event',
      'mock/stall-later',
      'timeout_error',
    ],
  ])(
    'ends a stream with %s with an error event in Anthropic’s shape and no message_stop',
    async (_, model, type) => {
      const response = await relays.open.fetch(sdkRequest({ ...question(model), stream: true }))
      expect(response.status).toBe(200)
      const text = await response.text()
      expect(text).toContain('"text":"Halb"')
      const body = expectStreamError(text, type)
      const stream = await client(relays.open).messages.create({
        ...question(model),
        stream: true,
      })
      await expectStreamRaised(stream, 'Halb', body)
    },
  )
})

describe('the relay token on /v1/messages', () => {
  const ask = JSON.stringify(question())
  const post = (headers: Record<string, string>) =>
    relays.open.fetch(
      new Request('http://relay.test/v1/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: ask,
      }),
    )

  it('is read from x-api-key, as Anthropic’s clients send their key, and from authorization: Bearer', async () => {
    expect((await post({ 'x-api-key': TOKEN })).status).toBe(200)
    expect((await post({ authorization: `Bearer ${TOKEN}` })).status).toBe(200)
    // The SDK sends its key as a bearer token; one given as x-api-key is taken too.
    const sdk = new Anthropic({
      apiKey: null,
      authToken: null,
      defaultHeaders: { 'x-api-key': TOKEN },
      baseURL: 'http://relay.test',
      maxRetries: 0,
      fetch: (input, init) => relays.open.fetch(new Request(input, init)),
    })
    const message = await sdk.messages.create(question())
    expect(message.content[0]).toMatchObject({ type: 'thinking' })
  })

  it('refuses a wrong x-api-key with a 401 in Anthropic’s shape', async () => {
    const body = await expectMessagesError(await post({ 'x-api-key': 'wrong-token-0123456789' }), {
      status: 401,
      type: 'authentication_error',
      raises: Anthropic.AuthenticationError,
      headers: { 'www-authenticate': 'Bearer' },
    })
    expect(body.error.message).not.toContain('wrong-token')
    expect((await post({})).status).toBe(401)
  })

  it('reads authorization first when both are sent, and x-api-key on no other route', async () => {
    expect(
      (await post({ authorization: 'Bearer wrong-token-0123456789', 'x-api-key': TOKEN })).status,
    ).toBe(401)
    const chat = await relays.open.fetch(
      new Request('http://relay.test/v1/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TOKEN },
        body: JSON.stringify({
          model: 'mock/echo',
          conversation: { turns: [{ role: 'user', content: 'Hi' }] },
        }),
      }),
    )
    expect(chat.status).toBe(401)
  })

  it('hands an auth hook the token from x-api-key as a bearer token', async () => {
    const seen: (string | null)[] = []
    const relay = createRelay({
      providers: refusalProviders,
      auth: (request) => {
        seen.push(request.headers.get('authorization'))
        return request.headers.get('authorization') === `Bearer ${TOKEN}` ? 'client-1' : null
      },
    })
    const response = await relay.fetch(
      new Request('http://relay.test/v1/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TOKEN },
        body: ask,
      }),
    )
    expect(response.status).toBe(200)
    expect(seen).toEqual([`Bearer ${TOKEN}`])
  })
})

describe('what a refused request is told on /v1/messages', () => {
  const call = () =>
    new Request('http://relay.test/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': TOKEN },
      body: JSON.stringify(question()),
    })

  it.each([
    [{ refuse: 'the token has expired' }, 401, 'authentication_error'],
    [{ refuse: 'banned', status: 403 as const }, 403, 'permission_error'],
    [{ refuse: 'keys down', status: 503 as const }, 529, 'overloaded_error'],
  ])(
    'answers an auth hook’s refusal %o as %i %s, with its reason',
    async (refusal, status, type) => {
      const relay = createRelay({ providers: refusalProviders, auth: () => refusal })
      const response = await relay.fetch(call())
      expect(response.status).toBe(status)
      expect(await response.json()).toEqual({
        type: 'error',
        error: { type, message: refusal.refuse },
      })
    },
  )

  it('answers a relay that cannot start in Anthropic’s shape (refuseRequest)', async () => {
    const response = await refuseRequest(
      call(),
      500,
      'server',
      'RELAY_TOKENS: a token is too short',
    )
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'api_error', message: 'RELAY_TOKENS: a token is too short' },
    })
  })
})
