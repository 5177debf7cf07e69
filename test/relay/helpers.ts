import { expect } from 'vitest'
import type { AssistantTurn, Turn } from '../../src/core/conversation.ts'
import type { ProviderEntry } from '../../src/core/registry.ts'
import { mock } from '../../src/providers/mock/index.ts'
import type { Relay } from '../../src/relay/options.ts'
import { payloads, readSse, type ReadSse } from './sse-reader.ts'

/** The offline mock model, `mock/echo`, as a relay's only provider. */
export const offline: { readonly [provider: string]: ProviderEntry } = {
  mock: { create: (model) => mock({ model }), models: ['echo'] },
}

export const ask = (content = 'What is 2 + 2?'): Turn[] => [{ role: 'user', content }]

/** `POST /v1/chat` with a JSON body (a string is sent as it is). */
export function chat(
  relay: Relay,
  body: unknown,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  return relay.fetch(
    new Request('http://relay.test/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...init.headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: init.signal ?? null,
    }),
  )
}

export async function errorBody(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/json')
  return ((await response.json()) as { error: Record<string, unknown> }).error
}

export function doneOf(read: ReadSse): AssistantTurn {
  const last = payloads(read).at(-1)
  expect(last?.event).toBe('done')
  return (last!.data as { turn: AssistantTurn }).turn
}

export async function streamed(response: Response): Promise<ReadSse> {
  expect(response.status).toBe(200)
  return readSse(response)
}
