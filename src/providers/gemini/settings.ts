/**
 * How to reach the Gemini API, for `gemini()` and `geminiInteractions()` alike: everything of
 * their options but the model.
 */
export type GeminiSettings = {
  /** A Gemini API key. It travels in the `x-goog-api-key` header, never in a URL. */
  apiKey: string
  /** @defaultValue `https://generativelanguage.googleapis.com` */
  baseURL?: string | undefined
  /**
   * A `fetch` to send requests with, called as `fetch(url, init)` (tests pass one that replays
   * recorded streams).
   * @defaultValue `globalThis.fetch`, as it is at each request. In Node, that fetch gives up after
   * 300 s without response headers, or between two parts of the body (a `timeout` error that says
   * so); a model that thinks longer than that in silence needs a fetch that waits longer, see
   * `gemini()`.
   */
  fetch?: typeof globalThis.fetch | undefined
  /** Extra headers on every request. */
  headers?: Record<string, string> | undefined
}
