/**
 * What every test Worker runs with unless its test says otherwise: open to anyone
 * (`ALLOW_ANONYMOUS`: the closed default has tests of its own, which set it), and a fixed
 * `CLIENT_ID_SECRET`, which `RELAY_TOKENS` requires (a test of that rule sets it empty).
 */
export const TEST_WORKER_VARS: Readonly<Record<string, string>> = {
  ALLOW_ANONYMOUS: 'true',
  CLIENT_ID_SECRET: 'test-client-id-secret-0123456789abcdef',
}
