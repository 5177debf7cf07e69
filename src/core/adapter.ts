import type { Capabilities } from './capabilities.ts'
import type { Conversation } from './conversation.ts'
import type { Event } from './events.ts'

/** A JSON Schema object, passed to providers as it is. */
export type JSONSchema = { [key: string]: unknown }

/** How hard the model should think: a level, or an explicit token budget. */
export type Thinking = 'off' | 'low' | 'medium' | 'high' | 'max' | { budgetTokens: number }

/** A tool the model may call. */
export type ToolSpec = {
  name: string
  description?: string | undefined
  /** JSON Schema of the tool's input (an object schema). */
  parameters: JSONSchema
}

/** Whether and which tool the model must call. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string }

/** Ask for JSON output, optionally matching a schema. */
export type ResponseFormat = {
  type: 'json'
  schema?: JSONSchema | undefined
  name?: string | undefined
}

/**
 * Prompt caching: `true` keeps the stable prefix of the request (system prompt, tools, the
 * conversation so far) in the provider's cache, marking it where the provider needs marks
 * (Anthropic `cache_control`); providers that cache on their own do so anyway. An object also
 * gives a cache `key` (requests with the same key share a cache, OpenAI `prompt_cache_key`) and a
 * `ttl` where the provider takes one. What was read from or written to the cache is in the turn's
 * `usage`.
 */
export type CacheOptions = boolean | { key?: string | undefined; ttl?: '5m' | '1h' | undefined }

/** Options of one call. Every field is optional; adapters drop what a model does not take and warn. */
export type CallOptions = {
  /** Aborting it cancels the upstream request; the stream then throws an `aborted` error. */
  signal?: AbortSignal | undefined
  /** Reasoning effort. Omitted: the model's default. */
  thinking?: Thinking | undefined
  tools?: ToolSpec[] | undefined
  toolChoice?: ToolChoice | undefined
  /** Maximum output tokens. */
  maxTokens?: number | undefined
  temperature?: number | undefined
  /** Stop sequences: the answer ends before any of them (a provider that takes fewer gets the first ones, with a warning). */
  stop?: string[] | undefined
  responseFormat?: ResponseFormat | undefined
  /** Prompt caching (see {@link CacheOptions}). @defaultValue the provider's own behaviour */
  cache?: CacheOptions | undefined
  /**
   * Give up with a `timeout` error when the upstream sends nothing for this long.
   * @defaultValue no idle timeout
   */
  idleTimeoutMs?: number | undefined
  /** Escape hatch: options for one provider, under its `provider` name, merged into its request. */
  providerOptions?: { [provider: string]: unknown } | undefined
}

/**
 * The one interface every provider implements. `stream()` yields `thinking`/`text`/`tool-call`
 * events in order and exactly one `done` last; on failure it throws a `ThinkwireError` and yields
 * no `done`. Breaking out of the loop or aborting the signal cancels the upstream request.
 */
export interface Adapter {
  /** Provider name: `'anthropic'`, `'openai'`, `'gemini'`, `'groq'`, `'mock'`, ... */
  readonly provider: string
  /** Model id as the provider knows it. */
  readonly model: string
  /** What the model supports. Every built-in adapter sets it; the registry lists it in `/v1/models`. */
  readonly capabilities?: Capabilities | undefined
  stream(conversation: Conversation, options?: CallOptions): AsyncIterable<Event>
}
