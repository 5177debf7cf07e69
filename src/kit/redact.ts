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

/**
 * Removes credentials from an error's message, in place, and returns the error. A message is
 * redacted where it can first hold a key: as it leaves an adapter's stream (`guardStream`) and as
 * the relay answers, logs or stores it. A browser holds no provider key, and makes its errors from
 * the relay's, which are redacted already.
 */
export function redactError<E extends Error>(error: E): E {
  const before = error.message
  const message = redact(before)
  if (message === before) return error
  error.message = message
  // V8 writes the message into `stack` when `stack` is first read, which may have happened.
  const { stack } = error
  if (typeof stack === 'string' && stack.includes(before)) {
    error.stack = stack.split(before).join(message)
  }
  return error
}
