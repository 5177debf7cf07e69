import type { GenerateContentParameters, GoogleGenAI } from '@google/genai'
import { isApiError, mapGeminiError } from './map-error.ts'

/**
 * Sends a `streamGenerateContent?alt=sse` request with `models.generateContentStream` and returns
 * the raw response, unread. The SDK converts the request, authenticates, sends it and throws its
 * `ApiError` for an HTTP failure, mapped here with the headers of the response (a proxy's
 * `retry-after`); its generator, which has not read the body yet, is closed unread, so the body is
 * parsed once, by the adapter. The fetch is passed per request, so concurrent streams on one
 * client each get their own response.
 *
 * Without a caller's fetch, the request goes to the global fetch as the SDK made it. In Node, that
 * fetch has its own time limits (see `nodeFetchTimeout`); `@google/genai` lifts them when it sends
 * with the global fetch itself, through undici's private state, which the adapter does not touch.
 */
export async function sendRequest(
  client: GoogleGenAI,
  request: GenerateContentParameters,
  fetch: typeof globalThis.fetch | undefined,
  provider: string,
): Promise<Response> {
  const config = request.config ?? {}
  // Read at each call, not once: the global fetch may be replaced after the adapter was made.
  const send: typeof globalThis.fetch =
    config.httpOptions?.fetch ?? fetch ?? ((input, init) => globalThis.fetch(input, init))
  let response: Response | undefined
  config.httpOptions = {
    ...config.httpOptions,
    fetch: async (input, init) => (response = await send(input, init)),
  }
  try {
    const stream = await client.models.generateContentStream({ ...request, config })
    await stream.return(undefined)
  } catch (error) {
    throw isApiError(error) ? mapGeminiError(error, provider, response?.headers) : error
  }
  if (response === undefined) throw new Error('gemini: the SDK sent no request')
  return response
}
