/**
 * What every error of `/v1/chat/completions` must look like, for the in-process relay and for the
 * Worker in workerd alike: OpenAI's shape on the wire, and the openai SDK's typed error from it.
 */
import OpenAI from 'openai'
import { expect } from 'vitest'

/** A change made to a request the openai SDK sends, on its way to the relay. */
export type Rewrite = (request: Request) => Request

/** The request as it is. */
export const unchanged: Rewrite = (request) => request

/** The request with these headers set (its body kept). */
export const withHeaders =
  (headers: Record<string, string>): Rewrite =>
  (request) => {
    const out = new Headers(request.headers)
    for (const [name, value] of Object.entries(headers)) out.set(name, value)
    return new Request(request, { headers: out })
  }

/** The request with another body (`null`: none) and method. */
export const withBody =
  (body: BodyInit | null, method = 'POST'): Rewrite =>
  (request) =>
    new Request(request.url, {
      method,
      headers: request.headers,
      body,
      duplex: 'half',
    } as RequestInit)

/** An error answer as OpenAI's clients must see it. */
export type ExpectedError = {
  status: number
  type: string
  code: string | null
  param: string | null
  /** The openai SDK's error class for the status (`OpenAI.APIError` or a subclass). */
  raises: new (...args: never[]) => InstanceType<typeof OpenAI.APIError>
  /** Headers the answer carries (`retry-after`, `allow`, `www-authenticate`). */
  headers?: Record<string, string> | undefined
}

/**
 * Checks that `response` is `{ "error": { "message", "type", "code", "param" } }` and nothing
 * more, with the expected status, headers and values; returns its `error`.
 */
export async function expectOpenAIError(
  response: Response,
  expected: ExpectedError,
): Promise<Record<string, unknown>> {
  expect(response.status).toBe(expected.status)
  expect(response.headers.get('content-type')).toBe('application/json')
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    expect(response.headers.get(name)).toBe(value)
  }
  const body = (await response.json()) as { error: Record<string, unknown> }
  expect(Object.keys(body)).toEqual(['error'])
  expect(Object.keys(body.error).toSorted()).toEqual(['code', 'message', 'param', 'type'])
  const { type, code, param } = expected
  expect(body.error).toMatchObject({ type, code, param, message: expect.stringMatching(/\S/) })
  return body.error
}

/** Checks that `call` fails with the SDK's error class for the status, carrying `error` as sent. */
export async function expectRaised(
  call: () => Promise<unknown>,
  expected: ExpectedError,
  error: Record<string, unknown>,
): Promise<void> {
  const thrown = await call().then(
    () => undefined,
    (failure: unknown) => failure,
  )
  expect(thrown).toBeInstanceOf(expected.raises)
  const { status, type, code, param } = expected
  expect(thrown).toMatchObject({ status, type, code, param, error })
}

/**
 * Checks that a streamed answer ended with an error chunk in OpenAI's shape (and no `[DONE]`);
 * returns its `error`.
 */
export function expectStreamError(text: string, type: string): Record<string, unknown> {
  expect(text).not.toContain('[DONE]')
  const last = text.trim().split('\n\n').at(-1)!
  expect(last.startsWith('data: ')).toBe(true)
  const body = JSON.parse(last.slice('data: '.length)) as { error: Record<string, unknown> }
  expect(Object.keys(body)).toEqual(['error'])
  expect(Object.keys(body.error).toSorted()).toEqual(['code', 'message', 'param', 'type'])
  expect(body.error).toMatchObject({ type, code: null, param: null })
  return body.error
}

/** Checks that iterating `stream` yields `content`, then fails with the SDK's `APIError` for `error`. */
export async function expectStreamRaised(
  stream: AsyncIterable<OpenAI.ChatCompletionChunk>,
  content: string,
  error: Record<string, unknown>,
): Promise<void> {
  let seen = ''
  const thrown = await (async () => {
    for await (const chunk of stream) seen += chunk.choices[0]?.delta.content ?? ''
  })().then(
    () => undefined,
    (failure: unknown) => failure,
  )
  expect(seen).toBe(content)
  expect(thrown).toBeInstanceOf(OpenAI.APIError)
  expect(thrown).toMatchObject({ type: error['type'], code: null, param: null, error })
}
