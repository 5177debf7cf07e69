import type { GenerateContentParameters, GoogleGenAI } from '@google/genai'
import { withoutNodeTimeouts } from './no-timeout.ts'

/** What one request received: the raw response, once the SDK has it (also when it failed). */
export type Exchange = { response?: Response | undefined }

/**
 * Sends a `streamGenerateContent?alt=sse` request with `models.generateContentStream` and returns
 * the raw response, unread. The SDK converts the request, authenticates, sends it and throws its
 * `ApiError` for an HTTP failure; its generator, which has not read the body yet, is closed
 * unread, so the body is parsed once, by the adapter. The fetch is passed per request, so
 * concurrent streams on one client each get their own response. Without a caller's fetch,
 * Node's fetch timeouts are lifted as the SDK lifts them for its own fetch.
 */
export async function sendRequest(
  client: GoogleGenAI,
  request: GenerateContentParameters,
  fetch: typeof globalThis.fetch | undefined,
  exchange: Exchange,
): Promise<Response> {
  const config = request.config ?? {}
  const given = config.httpOptions?.fetch ?? fetch
  const send: typeof globalThis.fetch =
    given ?? ((input, init) => globalThis.fetch(input, withoutNodeTimeouts(init)))
  config.httpOptions = {
    ...config.httpOptions,
    fetch: async (input, init) => (exchange.response = await send(input, init)),
  }
  const stream = await client.models.generateContentStream({ ...request, config })
  await stream.return(undefined)
  if (exchange.response === undefined) throw new Error('gemini: the SDK sent no request')
  return exchange.response
}
