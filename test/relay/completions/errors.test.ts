import { describe, expect, it } from 'vitest'
import {
  completionErrorBody,
  completionErrorResponse,
  errorTypeOf,
} from '../../../src/relay/completions/index.ts'

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

  it('gives invalid_value to a field at fault, null otherwise, and takes a code given', () => {
    expect(completionErrorBody(400, 'invalid-request', 'm', 'messages[0].role').error.code).toBe(
      'invalid_value',
    )
    expect(completionErrorBody(400, 'invalid-request', 'm').error).toMatchObject({
      code: null,
      param: null,
    })
    expect(completionErrorBody(401, 'auth', 'm').error.code).toBeNull()
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
