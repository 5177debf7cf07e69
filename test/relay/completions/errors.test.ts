/**
 * Errors of `/v1/chat/completions` in OpenAI's shape: the mapping from status and kind, then every
 * refusal the endpoint makes, on the wire and as the openai SDK raises it.
 */
import OpenAI from 'openai'
import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions'
import { describe, expect, it } from 'vitest'
import { endless, refusalRelays } from '../refusal-relays.ts'
import type { Relay } from '../../../src/relay/index.ts'
import {
  completionErrorBody,
  completionErrorResponse,
  errorTypeOf,
} from '../../../src/relay/completions/index.ts'
import {
  expectOpenAIError,
  expectRaised,
  expectStreamError,
  expectStreamRaised,
  unchanged,
  withBody,
  withHeaders,
  type ExpectedError,
  type Rewrite,
} from './openai-errors.ts'

describe('errorTypeOf', () => {
  it.each([
    [400, 'invalid_request_error'],
    [404, 'invalid_request_error'],
    [405, 'invalid_request_error'],
    [408, 'invalid_request_error'],
    [413, 'invalid_request_error'],
    [415, 'invalid_request_error'],
    [499, 'invalid_request_error'],
    [401, 'authentication_error'],
    [403, 'permission_error'],
    [429, 'rate_limit_error'],
    [504, 'timeout_error'],
    [500, 'server_error'],
    [502, 'server_error'],
    [503, 'server_error'],
  ])('%i → %s', (status, type) => {
    expect(errorTypeOf(status)).toBe(type)
  })
})

describe('completionErrorBody', () => {
  it('names the model that is not served with model_not_found', () => {
    expect(
      completionErrorBody(
        404,
        'invalid-request',
        "model 'x/y' is not served by this relay",
        'model',
      ),
    ).toEqual({
      error: {
        message: "model 'x/y' is not served by this relay",
        type: 'invalid_request_error',
        code: 'model_not_found',
        param: 'model',
      },
    })
  })

  it('gives invalid_value to a field at fault, invalid_api_key to a 401, null otherwise, and takes a code given', () => {
    expect(completionErrorBody(400, 'invalid-request', 'm', 'messages[0].role').error.code).toBe(
      'invalid_value',
    )
    expect(completionErrorBody(400, 'invalid-request', 'm').error).toMatchObject({
      code: null,
      param: null,
    })
    expect(completionErrorBody(401, 'auth', 'm').error.code).toBe('invalid_api_key')
    expect(completionErrorBody(403, 'auth', 'm').error.code).toBeNull()
    expect(
      completionErrorBody(400, 'invalid-request', 'm', 'x', 'unknown_parameter').error.code,
    ).toBe('unknown_parameter')
    expect(completionErrorBody(400, 'invalid-request', 'm', 'x', null).error.code).toBeNull()
    expect(completionErrorBody(400, 'context-length', 'm').error.code).toBe(
      'context_length_exceeded',
    )
  })
})

describe('completionErrorResponse', () => {
  it('answers JSON with the status and the headers the caller passes', async () => {
    const response = completionErrorResponse(
      429,
      'rate-limit',
      'rate limit reached for this client',
      {},
      { 'retry-after': '3' },
    )
    expect(response.status).toBe(429)
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(response.headers.get('retry-after')).toBe('3')
    expect(await response.json()).toEqual({
      error: {
        message: 'rate limit reached for this client',
        type: 'rate_limit_error',
        code: 'rate_limit_exceeded',
        param: null,
      },
    })
  })

  it('keeps content-type JSON whatever headers are passed', () => {
    const response = completionErrorResponse(
      401,
      'auth',
      'missing token',
      {},
      { 'content-type': 'text/html', 'www-authenticate': 'Bearer' },
    )
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(response.headers.get('www-authenticate')).toBe('Bearer')
  })
})

const TOKEN = 'token-completion-errors-01'
const relays = refusalRelays(TOKEN)

/** The openai SDK on `relay`, each request changed by `rewrite` on its way. */
function client(relay: Relay, rewrite: Rewrite = unchanged, apiKey = TOKEN): OpenAI {
  return new OpenAI({
    apiKey,
    baseURL: 'http://relay.test/v1',
    maxRetries: 0,
    fetch: (input, init) => relay.fetch(rewrite(new Request(input, init))),
  })
}

/** The request the openai SDK would send for `params`, changed by `rewrite`. */
function sdkRequest(params: object, rewrite: Rewrite = unchanged, apiKey = TOKEN): Request {
  return rewrite(
    new Request('http://relay.test/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(params),
    }),
  )
}

const question = (model = 'mock/echo', content = 'Hi') => ({
  model,
  messages: [{ role: 'user' as const, content }],
})

type ErrorCase = ExpectedError & {
  relay: Relay
  params: ChatCompletionCreateParams
  rewrite?: Rewrite | undefined
  apiKey?: string | undefined
}

const CASES: Record<string, ErrorCase> = {
  'a body that is not JSON': {
    relay: relays.open,
    params: question(),
    rewrite: withBody('{"model":'),
    status: 400,
    type: 'invalid_request_error',
    code: null,
    param: null,
    raises: OpenAI.BadRequestError,
  },
  'a body that is not a JSON object': {
    relay: relays.open,
    params: question(),
    rewrite: withBody('[1]'),
    status: 400,
    type: 'invalid_request_error',
    code: null,
    param: null,
    raises: OpenAI.BadRequestError,
  },
  'a content-type other than JSON': {
    relay: relays.open,
    params: question(),
    rewrite: withHeaders({ 'content-type': 'text/plain' }),
    status: 415,
    type: 'invalid_request_error',
    code: null,
    param: null,
    raises: OpenAI.APIError,
  },
  'a body over the size limit': {
    relay: relays.open,
    params: question('mock/echo', 'x'.repeat(5000)),
    status: 413,
    type: 'invalid_request_error',
    code: null,
    param: null,
    raises: OpenAI.APIError,
  },
  'a body that does not arrive in time': {
    relay: relays.open,
    params: question(),
    rewrite: (request) => withBody(endless())(request),
    status: 408,
    type: 'invalid_request_error',
    code: null,
    param: null,
    raises: OpenAI.APIError,
  },
  'a model the relay does not know': {
    relay: relays.open,
    params: question('mock/nothing'),
    status: 404,
    type: 'invalid_request_error',
    code: 'model_not_found',
    param: 'model',
    raises: OpenAI.NotFoundError,
  },
  'a model the allowlist leaves out': {
    relay: relays.filtered,
    params: question('mock/hidden'),
    status: 404,
    type: 'invalid_request_error',
    code: 'model_not_found',
    param: 'model',
    raises: OpenAI.NotFoundError,
  },
  'a model whose provider cannot start': {
    relay: relays.open,
    params: question('broken/m'),
    status: 502,
    type: 'server_error',
    code: null,
    param: 'model',
    raises: OpenAI.InternalServerError,
  },
  'a field out of range': {
    relay: relays.open,
    params: { ...question(), temperature: -3 },
    status: 400,
    type: 'invalid_request_error',
    code: 'invalid_value',
    param: 'temperature',
    raises: OpenAI.BadRequestError,
  },
  'a field of the relay’s own checks, named as OpenAI names it': {
    relay: relays.open,
    params: question('mock/echo', ''),
    status: 400,
    type: 'invalid_request_error',
    code: 'invalid_value',
    param: 'messages[0].content',
    raises: OpenAI.BadRequestError,
  },
  'a field that is not part of the OpenAI API': {
    relay: relays.open,
    params: { ...question(), base_url: 'http://evil.test' } as ChatCompletionCreateParams,
    status: 400,
    type: 'invalid_request_error',
    code: 'unknown_parameter',
    param: 'base_url',
    raises: OpenAI.BadRequestError,
  },
  'a token the relay does not know': {
    relay: relays.open,
    params: question(),
    apiKey: 'wrong-token-0123456789',
    status: 401,
    type: 'authentication_error',
    code: 'invalid_api_key',
    param: null,
    raises: OpenAI.AuthenticationError,
    headers: { 'www-authenticate': 'Bearer' },
  },
  'an origin the relay does not allow': {
    relay: relays.open,
    params: question(),
    rewrite: withHeaders({ origin: 'https://evil.test' }),
    status: 403,
    type: 'permission_error',
    code: null,
    param: null,
    raises: OpenAI.PermissionDeniedError,
  },
  'a method other than POST': {
    relay: relays.open,
    params: question(),
    rewrite: withBody(null, 'GET'),
    status: 405,
    type: 'invalid_request_error',
    code: null,
    param: null,
    raises: OpenAI.APIError,
    headers: { allow: 'POST, OPTIONS' },
  },
  'a client over its rate limit': {
    relay: relays.rated,
    params: question(),
    status: 429,
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    param: null,
    raises: OpenAI.RateLimitError,
    headers: { 'retry-after': '3' },
  },
  'a client over its budget': {
    relay: relays.budgeted,
    params: question(),
    status: 429,
    type: 'rate_limit_error',
    code: 'insufficient_quota',
    param: null,
    raises: OpenAI.RateLimitError,
    headers: { 'retry-after': '7200' },
  },
  'a rate limiter that is down': {
    relay: relays.limiterDown,
    params: question(),
    status: 503,
    type: 'server_error',
    code: null,
    param: null,
    raises: OpenAI.InternalServerError,
  },
  'a relay whose own setup fails': {
    relay: relays.faulty,
    params: question(),
    status: 500,
    type: 'server_error',
    code: null,
    param: null,
    raises: OpenAI.InternalServerError,
  },
  'a provider over its rate limit': {
    relay: relays.open,
    params: question('mock/rate-limit'),
    status: 429,
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    param: null,
    raises: OpenAI.RateLimitError,
    headers: { 'retry-after': '2' },
  },
  'a conversation too long for the model': {
    relay: relays.open,
    params: question('mock/context-length'),
    status: 400,
    type: 'invalid_request_error',
    code: 'context_length_exceeded',
    param: null,
    raises: OpenAI.BadRequestError,
  },
  'a provider that refuses the relay’s key': {
    relay: relays.open,
    params: question('mock/auth'),
    status: 502,
    type: 'server_error',
    code: null,
    param: null,
    raises: OpenAI.InternalServerError,
  },
  'a provider failing before its first chunk': {
    relay: relays.open,
    params: { ...question('mock/server'), stream: true },
    status: 502,
    type: 'server_error',
    code: null,
    param: null,
    raises: OpenAI.InternalServerError,
  },
  'a provider that is overloaded': {
    relay: relays.open,
    params: question('mock/overloaded'),
    status: 503,
    type: 'server_error',
    code: null,
    param: null,
    raises: OpenAI.InternalServerError,
  },
  'a provider that times out': {
    relay: relays.open,
    params: question('mock/timeout'),
    status: 504,
    type: 'timeout_error',
    code: null,
    param: null,
    raises: OpenAI.InternalServerError,
  },
  'a provider silent past the idle timeout, streamed': {
    relay: relays.open,
    params: { ...question('mock/stall'), stream: true },
    status: 504,
    type: 'timeout_error',
    code: null,
    param: null,
    raises: OpenAI.InternalServerError,
  },
  'a provider silent past the idle timeout, not streamed': {
    relay: relays.open,
    params: question('mock/stall'),
    status: 504,
    type: 'timeout_error',
    code: null,
    param: null,
    raises: OpenAI.InternalServerError,
  },
}

describe('every refusal of /v1/chat/completions', () => {
  it.each(Object.entries(CASES))(
    'answers %s in OpenAI’s error shape, which the openai SDK raises as its typed error',
    async (_, c) => {
      const response = await c.relay.fetch(sdkRequest(c.params, c.rewrite, c.apiKey))
      const error = await expectOpenAIError(response, c)
      const sdk = client(c.relay, c.rewrite, c.apiKey)
      await expectRaised(() => sdk.chat.completions.create(c.params), c, error)
    },
  )

  it.each([
    ['a provider failing after its first chunk', 'mock/fail-later', 'server_error'],
    [
      'a provider silent past the idle timeout after its first chunk',
      'mock/stall-later',
      'timeout_error',
    ],
  ])(
    'ends a stream with %s with an error chunk in OpenAI’s shape and no [DONE]',
    async (_, model, type) => {
      const response = await relays.open.fetch(sdkRequest({ ...question(model), stream: true }))
      expect(response.status).toBe(200)
      const text = await response.text()
      expect(text).toContain('"content":"Halb"')
      const error = expectStreamError(text, type)
      const stream = await client(relays.open).chat.completions.create({
        ...question(model),
        stream: true,
      })
      await expectStreamRaised(stream, 'Halb', error)
    },
  )
})
