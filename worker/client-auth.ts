import { anyAuth, jwtAuth, type JwtAuthOptions, type RelayAuth } from 'thinkwire/relay'
import {
  addressClientId,
  flag,
  keySecret,
  list,
  MIN_SECRET_LENGTH,
  secrets,
  setting,
} from './settings.ts'

/** Who may call the Worker, as its settings say. */
export type AuthSettings = {
  /** `RELAY_TOKENS`: the bearer tokens of the relay's clients. */
  tokens: string[]
  /** `CLIENT_ID_SECRET`: the key of the tokens' client ids. */
  clientIdSecret: string | Uint8Array | undefined
  /** `AUTH_JWKS_URL`, `AUTH_ISSUER`, `AUTH_AUDIENCE`: end-user tokens, when set. */
  jwt: JwtAuthOptions | undefined
  /** `ALLOW_ANONYMOUS`: with no auth at all, serve anyone, told apart by address. */
  allowAnonymous: boolean
}

/** What a closed relay (no auth set, `ALLOW_ANONYMOUS` not "true") tells every caller. */
export const CLOSED_MESSAGE =
  'this relay admits no one until RELAY_TOKENS is set (or AUTH_JWKS_URL for end-user tokens, ' +
  'or ALLOW_ANONYMOUS="true" for a deliberately open relay)'

/** Why a relay with tokens needs `CLIENT_ID_SECRET`, and how to keep the ids it gave without one. */
const CLIENT_ID_SECRET_REQUIRED =
  'CLIENT_ID_SECRET is required with RELAY_TOKENS (token client ids, which own conversations ' +
  'and budgets, are HMACs under it): make one with `openssl rand -hex 32`, or keep the ids of a ' +
  'relay that ran without it with the value `npm run client-id-secret` prints'

/**
 * The shortest token `RELAY_TOKENS` takes: the relay's own minimum (it refuses shorter ones too),
 * checked here so that the error names the setting.
 */
const MIN_TOKEN_LENGTH = 16

/** `RELAY_TOKENS`, split on commas only, each at least 16 characters without whitespace. */
export function relayTokens(env: object): string[] {
  return secrets(env, 'RELAY_TOKENS', { minLength: MIN_TOKEN_LENGTH, spaces: false })
}

/** Reads and checks the auth settings; each message names the setting at fault. */
export function readAuthSettings(env: object): AuthSettings {
  return {
    tokens: relayTokens(env),
    clientIdSecret: keySecret(env, 'CLIENT_ID_SECRET', MIN_SECRET_LENGTH),
    jwt: jwtSettings(env),
    allowAnonymous: flag(env, 'ALLOW_ANONYMOUS', false),
  }
}

/** Whether the settings (or a custom Worker's hook) name any way to admit a client. */
export function hasAuth(settings: AuthSettings, hook?: RelayAuth | undefined): boolean {
  return settings.tokens.length > 0 || settings.jwt !== undefined || hook !== undefined
}

/**
 * The Worker's auth: a request is admitted by the first of its tokens (`RELAY_TOKENS`, and a
 * custom Worker's token list), a JWT of `AUTH_JWKS_URL`'s provider, or a custom Worker's hook
 * that names its client. With none of them the relay is closed (every request gets
 * {@link CLOSED_MESSAGE}), unless `ALLOW_ANONYMOUS` opens it: then clients are told apart by the
 * address Cloudflare's edge reports (IPv6 by /64).
 */
export function workerAuth(settings: AuthSettings, hook?: RelayAuth | undefined): RelayAuth {
  const tokens = [...settings.tokens, ...(typeof hook === 'object' ? hook : [])]
  const methods: RelayAuth[] = []
  if (tokens.length > 0) {
    if (settings.clientIdSecret === undefined) throw new TypeError(CLIENT_ID_SECRET_REQUIRED)
    methods.push(tokens)
  }
  if (settings.jwt !== undefined) methods.push(jwtAuth(settings.jwt))
  if (typeof hook === 'function') methods.push(hook)
  if (methods.length === 0) {
    if (!settings.allowAnonymous) return () => ({ refuse: CLOSED_MESSAGE })
    return (request) => addressClientId(request.headers.get('cf-connecting-ip'))
  }
  // The first reason given is the one told: a JWT's "expired" says more than "no such token".
  return anyAuth(methods, { clientIdSecret: settings.clientIdSecret })
}

/** `AUTH_JWKS_URL` with its `AUTH_ISSUER` and `AUTH_AUDIENCE`, or undefined when it is not set. */
function jwtSettings(env: object): JwtAuthOptions | undefined {
  const jwksUrl = setting(env, 'AUTH_JWKS_URL')?.trim() ?? ''
  const issuer = setting(env, 'AUTH_ISSUER')?.trim() ?? ''
  const audience = list(setting(env, 'AUTH_AUDIENCE'))
  if (jwksUrl === '') {
    const stray = issuer !== '' ? 'AUTH_ISSUER' : audience.length > 0 ? 'AUTH_AUDIENCE' : undefined
    if (stray === undefined) return undefined
    throw new TypeError(
      `${stray} is set but AUTH_JWKS_URL is not: set AUTH_JWKS_URL to the identity provider's key set (JWKS) URL`,
    )
  }
  if (issuer === '') {
    throw new TypeError(
      "AUTH_ISSUER is required with AUTH_JWKS_URL: the identity provider's issuer (the tokens' iss)",
    )
  }
  if (audience.length === 0) {
    throw new TypeError(
      "AUTH_AUDIENCE is required with AUTH_JWKS_URL: this relay's identifier at the provider (the tokens' aud)",
    )
  }
  const options = { jwksUrl, issuer, audience }
  try {
    // jwtAuth checks the URL as it takes it (https, or http on a loopback host); with the issuer
    // and audience checked above, what it refuses is the URL, told here by the setting's name.
    jwtAuth(options)
  } catch (error) {
    if (!(error instanceof TypeError)) throw error
    throw new TypeError('AUTH_JWKS_URL must be an https URL (http only on localhost)', {
      cause: error,
    })
  }
  return options
}
