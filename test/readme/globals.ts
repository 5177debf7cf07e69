/**
 * Offline values for the names documentation snippets take as given (declared in `globals.d.ts`,
 * which only the snippets' own type check reads), for the snippets that run.
 */
import { z as zod } from 'zod'
import { mock } from '../../src/providers/mock/index.ts'

/** Every name of `globals.d.ts`: the mock model answers, the rest records. */
export const readmeValues = {
  adapter: mock({
    script: (call) =>
      call.options.tools !== undefined && call.index === 0
        ? { toolCalls: [{ name: 'weather', input: { city: 'Paris' } }] }
        : call.options.responseFormat !== undefined
          ? { text: '{"city": "Paris"}' }
          : { text: 'Hello!' },
  }),
  primary: mock(),
  backup: mock(),
  conversation: { turns: [{ role: 'user', content: 'Where is it sunny?' }] },
  z: zod,
  render: () => {},
  showThinking: () => {},
  showAnswer: () => {},
  save: () => {},
  lookUp: (city: string) => `sunny in ${city}`,
  apiKey: 'sk-readme-0123456789',
  clientToken: 'client-token-0123456789',
  clientIdSecret: 'client-id-secret-0123456789abcdef0123',
  currentSecret: 'seal-current-0123456789abcdef0123456',
  previousSecret: 'seal-previous-0123456789abcdef012345',
  relayToken: 'relay-token-0123456789',
  baseURL: 'http://relay.test/v1',
  tools: [],
  getToken: async () => 'relay-token-0123456789',
  auth0: { getTokenSilently: async () => 'relay-token-0123456789' },
  runInBrowser: async () => null,
  load: () => undefined,
}

/** Puts every name of `globals.d.ts` on `globalThis`. */
export function installReadmeGlobals(): void {
  Object.assign(globalThis, readmeValues)
}
