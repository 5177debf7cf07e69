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

/**
 * Every kind, the retryable ones first (the first {@link RETRYABLE_KINDS}): a list ships fewer bytes
 * to browsers than a record of flags. The constructor's `KINDS.indexOf(kind)` takes only a kind
 * listed here, so a kind added to `ErrorKind` and left out fails to compile.
 */
const KINDS = [
  'rate-limit',
  'overloaded',
  'server',
  'network',
  'timeout',
  'auth',
  'invalid-request',
  'context-length',
  'content-filter',
  'aborted',
  'invalid-output',
] as const satisfies readonly ErrorKind[]
/** How many of {@link KINDS} are worth trying again. */
const RETRYABLE_KINDS = 5

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
 * may help, and `cause` holds the SDK's own error. An error that leaves an adapter's stream or the
 * relay never holds a key in its message (see `guardStream`).
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
    // `Error` reads only `cause` from its options, and sets it only when given: none for undefined.
    super(options.message, options.cause === undefined ? undefined : options)
    this.kind = options.kind
    this.retryable = options.retryable ?? KINDS.indexOf(options.kind) < RETRYABLE_KINDS
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
  // `Object()` keeps an object as it is and boxes a primitive, which holds no marker.
  return MARKER in Object(error)
}

/** True for an error kind of this version (a newer relay's unknown kind is not one). */
export function isErrorKind(value: unknown): value is ErrorKind {
  return (KINDS as readonly unknown[]).includes(value)
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

/** Throws the `aborted` error of a call whose signal has already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined, provider?: string): void {
  if (signal?.aborted) throw abortedError(provider, signal.reason)
}

/**
 * Wraps anything thrown into a `ThinkwireError`: kept as it is when it already is one, `aborted`
 * when the signal was aborted or for an `AbortError` (a fetch's; an SDK's own abort error is
 * mapped by `sdkTransportError`), `network` for a failed fetch, `server` otherwise.
 */
export function toThinkwireError(
  error: unknown,
  provider: string | undefined,
  signal?: AbortSignal | undefined,
): ThinkwireError {
  if (isThinkwireError(error)) return error
  if (signal?.aborted || (error instanceof Error && error.name === 'AbortError')) {
    return abortedError(provider, error)
  }
  return providerError(
    error instanceof TypeError ? 'network' : 'server',
    provider,
    messageOf(error),
    error,
  )
}

/** The message of anything thrown: an error's own message, else the value as a string. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
