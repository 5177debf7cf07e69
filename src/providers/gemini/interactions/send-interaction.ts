import { GoogleGenAI } from '@google/genai'
import { buildClient } from '../../../kit/sdk-error.ts'
import type { GeminiSettings } from '../settings.ts'
import type { InteractionBody } from './build-request.ts'
import { mapInteractionsError } from './map-error.ts'

/**
 * Sends `interactions.create({ stream: true })` with `@google/genai` and returns the raw response,
 * unread. The SDK builds the URL (`{baseURL}/v1beta/interactions`), authenticates
 * (`x-goog-api-key`), sends the body and throws its own error for an HTTP failure (mapped here).
 * Its retries are off (`withRetry` is the one retry policy) and so is its automatic continuation
 * (a stream is never resumed behind the caller's back; see `requires_continuation`).
 *
 * The SDK would parse the stream itself, with a reader that locks the body: it is handed the
 * response's status and headers over an empty event stream, and the body is kept, unread, for the
 * kit's one SSE reader. The Interactions client takes its `fetch` when it is built, not per request,
 * so each request builds its own client (about 0.3 ms), which gives concurrent streams each their
 * own response. The caller's fetch gets `(url, init)`, as every other adapter's fetch does, although
 * the SDK hands over a `Request`.
 */
export async function sendInteraction(
  transport: GeminiSettings,
  body: InteractionBody,
  signal: AbortSignal,
  provider: string,
): Promise<Response> {
  // Read at each call, not once: the global fetch may be replaced after the adapter was made.
  const send: typeof globalThis.fetch =
    transport.fetch ?? ((input, init) => globalThis.fetch(input, init))
  let response: Response | undefined
  const capture = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init)
    const answer = await send(request.url, {
      method: request.method,
      headers: request.headers,
      body: await request.text(),
      signal: request.signal,
    })
    // A failure's body is the SDK's to read: it throws the error it holds.
    if (!answer.ok) return answer
    response = answer
    const headers = new Headers(answer.headers)
    headers.set('content-type', 'text/event-stream')
    return new Response('', { status: answer.status, statusText: answer.statusText, headers })
  }
  const client = buildClient(
    provider,
    () =>
      new GoogleGenAI({
        apiKey: transport.apiKey,
        httpOptions: {
          fetch: capture,
          ...(transport.baseURL === undefined ? {} : { baseUrl: transport.baseURL }),
          ...(transport.headers === undefined ? {} : { headers: transport.headers }),
        },
      }),
  )
  try {
    // The SDK's stream, over the empty body, is left unread.
    await client.interactions.create(
      { ...body, automatic_continuation: false },
      { retries: { strategy: 'none' }, signal },
    )
  } catch (error) {
    throw mapInteractionsError(error, provider)
  }
  if (response === undefined) throw new Error(`${provider}: the SDK sent no request`)
  return response
}
