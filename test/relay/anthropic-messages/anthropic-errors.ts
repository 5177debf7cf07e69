/**
 * What every error of `/v1/messages` must look like, for the in-process relay and for the Worker
 * in workerd alike: Anthropic's shape on the wire, and `@anthropic-ai/sdk`'s typed error from it.
 */
import Anthropic from '@anthropic-ai/sdk'
import type { MessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages'
import { expect } from 'vitest'
import { parseSse } from '../sse-reader.ts'

/** An error answer as Anthropic's clients must see it. */
export type ExpectedMessagesError = {
  status: number
  type: string
  /** The SDK's error class for the status (`Anthropic.APIError` or a subclass). */
  raises: new (...args: never[]) => InstanceType<typeof Anthropic.APIError>
  /** Headers the answer carries (`retry-after`, `allow`, `www-authenticate`). */
  headers?: Record<string, string> | undefined
}

/** Anthropic's error body. */
export type MessagesErrorBody = { type: 'error'; error: { type: string; message: string } }

/**
 * Checks that `response` is `{ "type": "error", "error": { "type", "message" } }` and nothing
 * more, with the expected status, headers and type; returns the body.
 */
export async function expectMessagesError(
  response: Response,
  expected: ExpectedMessagesError,
): Promise<MessagesErrorBody> {
  expect(response.status).toBe(expected.status)
  expect(response.headers.get('content-type')).toBe('application/json')
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    expect(response.headers.get(name)).toBe(value)
  }
  const body = (await response.json()) as MessagesErrorBody
  expect(Object.keys(body).toSorted()).toEqual(['error', 'type'])
  expect(body.type).toBe('error')
  expect(Object.keys(body.error).toSorted()).toEqual(['message', 'type'])
  expect(body.error).toMatchObject({ type: expected.type, message: expect.stringMatching(/\S/) })
  return body
}

/** Checks that `call` fails with the SDK's error class for the status, carrying `body` as sent. */
export async function expectRaised(
  call: () => Promise<unknown>,
  expected: ExpectedMessagesError,
  body: MessagesErrorBody,
): Promise<void> {
  const thrown = await call().then(
    () => undefined,
    (failure: unknown) => failure,
  )
  expect(thrown).toBeInstanceOf(expected.raises)
  expect(thrown).toMatchObject({
    status: expected.status,
    type: expected.type,
    apiMessage: body.error.message,
    error: body,
  })
}

/**
 * Checks that a streamed answer ended with an `error` event in Anthropic's shape (and no
 * `message_stop`); returns its body.
 */
export function expectStreamError(text: string, type: string): MessagesErrorBody {
  const { events } = parseSse(text)
  expect(events.some((event) => event.event === 'message_stop')).toBe(false)
  const last = events.at(-1)!
  expect(last.event).toBe('error')
  const body = JSON.parse(last.data) as MessagesErrorBody
  expect(Object.keys(body).toSorted()).toEqual(['error', 'type'])
  expect(body).toMatchObject({ type: 'error', error: { type } })
  return body
}

/** Checks that iterating `stream` yields `text`, then fails with the SDK's `APIError` for `body`. */
export async function expectStreamRaised(
  stream: AsyncIterable<MessageStreamEvent>,
  text: string,
  body: MessagesErrorBody,
): Promise<void> {
  let seen = ''
  const thrown = await (async () => {
    for await (const event of stream) {
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
        seen += event.delta.text
    }
  })().then(
    () => undefined,
    (failure: unknown) => failure,
  )
  expect(seen).toBe(text)
  expect(thrown).toBeInstanceOf(Anthropic.APIError)
  expect(thrown).toMatchObject({ type: body.error.type, error: body })
}
