import { describe, expect, it } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../helpers/property.ts'
import { fuzzRelayHttp, predictedCoverage } from './relay-http.ts'

// test/relay/fuzz.test.ts throws random bodies at the relay and accepts any 4xx or a stream. This
// one varies the whole request (method, path, origin, authorization, content-type,
// content-length, body) and predicts the exact status of each, checks every call that reaches the
// model against the contract, and looks for secrets in every answer, header and log line.
// `npm run stress` runs the same property for 10,000+ cases.

/** The cases of a run, and their seed: about a second on a quiet machine. */
const CASES = 600
const SEED = 20_260_702

describe('relay over HTTP, fuzzed', () => {
  it(
    'answers every request with the status its headers and body earn, never a 500, leaking no secret',
    async () => {
      const stats = await fuzzRelayHttp(CASES, SEED, timeBound())
      // All of them, unless the machine is so busy that the time limit stopped the run early.
      expect(stats.cases).toBeGreaterThan(0)
      expect(stats.cases).toBeLessThanOrEqual(CASES)
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )

  it('reaches refusals of each kind and calls that reach the model, in the cases it runs first', () => {
    // Every answer is the status predicted for its case, so the predictions count what ran.
    const coverage = predictedCoverage(CASES, SEED)
    for (const status of [200, 204, 400, 401, 403, 404, 405, 413, 415, 502]) {
      expect(coverage.statuses[status] ?? 0).toBeGreaterThan(0)
    }
    expect(coverage.modelCalls).toBeGreaterThan(150)
  })
})
