/**
 * The header that gives one request to a test Worker settings of its own: the JSON of every
 * setting, as a Worker of its own would be started with (see `TestWorker.withSettings` and
 * `fixtures/settings-from-request.ts`).
 */
export const SETTINGS_HEADER = 'x-thinkwire-test-settings'
