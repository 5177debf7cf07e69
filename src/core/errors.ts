/** What went wrong, as one closed set shared by every provider. */
export type ErrorKind =
  | 'rate-limit'
  | 'overloaded'
  | 'auth'
  | 'invalid-request'
  | 'context-length'
  | 'content-filter'
  | 'server'
  | 'network'
  | 'timeout'
  | 'aborted'
  /** The model answered, but not with what was asked for (e.g. JSON that fails its schema). */
  | 'invalid-output'

const RETRYABLE: Readonly<Record<ErrorKind, boolean>> = {
  'rate-limit': true,
  overloaded: true,
  auth: false,
  'invalid-request': false,
  'context-length': false,
  'content-filter': false,
  server: true,
  network: true,
  timeout: true,
  aborted: false,
  'invalid-output': false,
}

/** Fields of a {@link ThinkwireError}. */
export type ThinkwireErrorOptions = {
  kind: ErrorKind
  message: string
  /** @defaultValue worked out from `kind` */
  retryable?: boolean | undefined
  retryAfterMs?: number | undefined
  status?: number | undefined
  provider?: string | undefined
  cause?: unknown
}

const MARKER = Symbol.for('thinkwire.error')

/**
 * The one error thinkwire throws. `kind` says what went wrong, `retryable` whether trying again
 * may help, and `cause` holds the SDK's own error. Messages never contain a key.
 */
export class ThinkwireError extends Error {
  override readonly name = 'ThinkwireError'
  // Declared only: the constructor sets them (a declared field costs bytes in every bundle).
  declare readonly kind: ErrorKind
  declare readonly retryable: boolean
  declare readonly retryAfterMs: number | undefined
  declare readonly status: number | undefined
  declare readonly provider: string | undefined
  readonly [MARKER] = true

  constructor(options: ThinkwireErrorOptions) {
    super(
      redact(options.message),
      options.cause === undefined ? undefined : { cause: options.cause },
    )
    this.kind = options.kind
    this.retryable = options.retryable ?? RETRYABLE[options.kind]
    this.retryAfterMs = options.retryAfterMs
    this.status = options.status
    this.provider = options.provider
  }

  /** True for a `ThinkwireError`, also one thrown by another bundled copy of thinkwire. */
  static isInstance(error: unknown): error is ThinkwireError {
    return isThinkwireError(error)
  }
}

/** True for a `ThinkwireError`, also one thrown by another bundled copy of thinkwire. */
export function isThinkwireError(error: unknown): error is ThinkwireError {
  return typeof error === 'object' && error !== null && MARKER in error
}

/** Whether errors of this kind are worth retrying by default. */
export function isRetryableKind(kind: ErrorKind): boolean {
  return RETRYABLE[kind]
}

/**
 * A `ThinkwireError` whose message names the provider first (`'acme: the response has no body'`),
 * as every message about a provider's stream is worded.
 */
export function providerError(
  kind: ErrorKind,
  provider: string | undefined,
  message: string,
  cause?: unknown,
): ThinkwireError {
  return new ThinkwireError({
    kind,
    message: `${provider ?? 'provider'}: ${message}`,
    provider,
    cause,
  })
}

/** An `aborted` error for a stream the caller cancelled. */
export function abortedError(provider: string | undefined, cause?: unknown): ThinkwireError {
  return new ThinkwireError({
    kind: 'aborted',
    message: 'The request was aborted',
    provider,
    cause,
  })
}

/**
 * Wraps anything thrown into a `ThinkwireError`: kept as it is when it already is one, `aborted`
 * when the signal was aborted, `network` for a failed fetch, `server` otherwise.
 */
export function toThinkwireError(
  error: unknown,
  provider: string | undefined,
  signal?: AbortSignal | undefined,
): ThinkwireError {
  if (isThinkwireError(error)) return error
  if (signal?.aborted === true || isAbortError(error)) return abortedError(provider, error)
  const kind = error instanceof TypeError ? 'network' : 'server'
  return providerError(kind, provider, messageOf(error), error)
}

/** The message of anything thrown: an error's own message, else the value as a string. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function isAbortError(error: unknown): boolean {
  return (
    error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError')
  )
}

// `\w` is `[A-Za-z0-9_]`, and `[^\W_]` is `[A-Za-z0-9]`. Keys with a known prefix: OpenAI,
// Anthropic (`sk-ant-`), OpenRouter (`sk-or-`), DeepSeek and others (`sk-`), Google (`AIza`), Groq
// (`gsk_`), xAI (`xai_`, `xai-`), Cerebras (`csk_`), Fireworks (`fw_`); each is removed to the end
// of its run of `[\w-]`.
const KEY_PATTERN =
  /\b(?:[spr]k-[\w-]{8}|AIza[\w-]{20}|(?:gsk|xai|csk|fw)_[\w-]{8}|xai-[^\W_]{20})[\w-]*/g
/** `Bearer <token>` anywhere in text; the callback spares ordinary words ("bearer token"). */
const BEARER_PATTERN = /\b(bearer\s+)([\w.~+/=-]+)/gi
/**
 * `name: value` and `name=value` pairs whose value is a credential. Header names such as
 * `x-api-key` and `x-goog-api-key` match from their `api-key`.
 */
const FIELD_PATTERN =
  /\b(authorization|api[-_]?key|(?:(?:access|refresh)[-_]?)?token|(?:client[-_]?)?secret|password)(["']?\s*[:=]\s*["']?)(?:(?:bearer|basic)\s+)?[^\s"',}]+/gi
/** A maximal run of base64url (or base64 without `/`) characters, padding included. */
const LONG_RUN = /(?<![\w+-])[\w+-]{32,}={0,2}(?![\w+=-])/g
/**
 * Ids that providers give responses, messages, reasoning items and tool calls (`resp_…`, `msg_…`,
 * `toolu_…`, `call_…`, `chatcmpl-…`, OpenRouter's `gen-…`). They are not secrets and they are what
 * a reader of the error needs, so a long run that starts with one of them is kept.
 */
const ID_PREFIX =
  /^(?:resp|msg|rs|fc|ws|ci|ctc|mcp|ig|call|(?:srv)?toolu|req|(?:chat)?cmpl|gen|file|batch|conv|item|run|thread|asst|step)[-_]/

/**
 * Removes anything that looks like a credential from a message: keys with a provider's prefix,
 * bearer tokens, `api_key=…`-style fields, long random runs of letters and digits without a
 * prefix (32+ characters), and the query string of any URL (where keys often travel).
 */
export function redact(message: string): string {
  let out = message.replace(/(https?:\/\/[^\s?#"']+)\?[^\s#"']*/g, '$1')
  out = out.replace(KEY_PATTERN, '[redacted]')
  out = out.replace(BEARER_PATTERN, (whole, prefix: string, token: string) =>
    isWord(token) ? whole : `${prefix}[redacted]`,
  )
  out = out.replace(FIELD_PATTERN, '$1$2[redacted]')
  return out.replace(LONG_RUN, (run) => (looksRandom(run) ? '[redacted]' : run))
}

/** A plain word after "bearer" ("bearer token", "Bearer authentication"), not a token. */
function isWord(token: string): boolean {
  return /^[a-z]{1,15}$/i.test(token)
}

/**
 * A secret without a prefix: letters and digits mixed, at least one unbroken stretch of 16 of them
 * (so hyphenated names such as `Llama-4-Maverick-17B-128E-Instruct-FP8` and UUIDs stay), and not a
 * provider's id.
 */
function looksRandom(run: string): boolean {
  return /[a-z]/i.test(run) && /\d/.test(run) && /[^\W_]{16}/.test(run) && !ID_PREFIX.test(run)
}
