import { describe, expect, it } from 'vitest'
import { fuzzRelayHttp } from './relay-http.ts'

// test/relay/fuzz.test.ts throws random bodies at the relay and accepts any 4xx or a stream. This
// one varies the whole request (method, path, origin, authorization, content-type,
// content-length, body) and predicts the exact status of each, checks every call that reaches the
// model against the contract, and looks for secrets in every answer, header and log line.
// `npm run stress` runs the same property for 10,000+ cases.

describe('relay over HTTP, fuzzed', () => {
  it('answers every request with the status its headers and body earn, never a 500, leaking no secret', async () => {
    const stats = await fuzzRelayHttp(1_000, 20_260_702)
    expect(stats.cases).toBe(1_000)
    // The generators reach every branch: refusals of each kind, and calls that reach the model.
    for (const status of [200, 204, 400, 401, 403, 404, 405, 413, 415, 502]) {
      expect(stats.statuses[status] ?? 0).toBeGreaterThan(0)
    }
    expect(stats.modelCalls).toBeGreaterThan(150)
  })
})
