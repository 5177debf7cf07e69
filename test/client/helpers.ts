import type { RelayOptions as ServerOptions } from '../../src/relay/options.ts'
import { createRelay } from '../../src/relay/index.ts'

export { collect, failure } from '../helpers/stream.ts'

/** A relay served in-process: `fetch` builds the Request and hands it to the relay's handler. */
export type InProcessRelay = {
  fetch: typeof globalThis.fetch
  /** Every request the relay received, in order. */
  requests: Request[]
  /** The response bodies handed out, to check they were cancelled. */
  responses: Response[]
}

export const RELAY_URL = 'http://relay.test'

export function inProcessRelay(options: ServerOptions): InProcessRelay {
  const server = createRelay(options)
  const requests: Request[] = []
  const responses: Response[] = []
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init)
    requests.push(request)
    const response = await server.fetch(request)
    responses.push(response)
    return response
  }
  return { fetch: fetch as typeof globalThis.fetch, requests, responses }
}
