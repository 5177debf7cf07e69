/** How the fuzzed relay is set up: its secrets, its one origin, its limits and its one model. */

/** Client tokens the relay accepts. */
export const TOKENS = ['relay-token-Qm9vB2xbX3k5cTdw', 'relay-token-older-Zx81Lm0Pq2Rs'] as const
export const SEAL_KEY = 'seal-key-Hk4n9Vw2Lp7Tq1Xz-Rb8Mc3Ns6Yd0Pf5Wg'
export const API_KEYS = [
  'sk-proj-FuzzKey0123456789abcdef',
  'fuzzsecret-9f8e7d6c5b4a39281706',
] as const
/** Nothing of these may appear in an answer, a header or a log line. */
export const SECRETS = [...TOKENS, SEAL_KEY, ...API_KEYS]
export const ORIGIN = 'https://app.example'
export const BASE = 'http://relay.test'
export const BODY_LIMIT = 16 * 1024
export const MAX_TURNS = 20
export const MODEL = 'fuzz/echo'
