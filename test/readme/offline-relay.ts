/**
 * The relay the documentation's client snippets talk to when they run: `createRelay` in this
 * process, serving the mock model under every provider name a snippet uses, behind the relay
 * token of `globals.ts`, with seal keys. While `withOfflineRelay` runs, `fetch` to the snippets' relay hosts
 * (`relay.example.com`, `relay.test`) reaches it, and any other address fails.
 */
import { createMock, mock } from '../../src/providers/mock/index.ts'
import { createRelay } from '../../src/relay/index.ts'
import { readmeValues } from './globals.ts'

const HOSTS = new Set(['relay.example.com', 'relay.test'])

export async function withOfflineRelay(run: () => Promise<void>): Promise<void> {
  const relay = createRelay({
    providers: {
      mock: createMock(),
      // `anthropic/claude-sonnet-4-5` and the like answer offline, as the mock.
      anthropic: (model) => mock({ provider: 'anthropic', model }),
    },
    auth: [readmeValues.relayToken],
    // Sealed, so a client that sends an answer back as it came (`reasoning_details` and all) is
    // checked to be replayed rather than refused.
    sealKeys: [readmeValues.currentSecret],
  })
  const original = globalThis.fetch
  globalThis.fetch = async (input, init) => {
    const request = new Request(input, init)
    const { host } = new URL(request.url)
    if (!HOSTS.has(host)) throw new TypeError(`a snippet tried to reach ${host}`)
    return relay.fetch(request)
  }
  try {
    await run()
  } finally {
    globalThis.fetch = original
  }
}
