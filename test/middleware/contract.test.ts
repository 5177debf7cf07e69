import { describeAdapterContract, type ContractHarness } from '../adapter-contract.ts'
import type { Adapter } from '../../src/core/adapter.ts'
import { withFallback } from '../../src/middleware/fallback.ts'
import { withRateLimit } from '../../src/middleware/rate-limit.ts'
import { withRetry } from '../../src/middleware/retry.ts'
import { mock, type MockAdapter, type MockResponse } from '../../src/providers/mock/index.ts'
import { fakeClock } from './helpers.ts'

const answer: MockResponse = {
  thinking: 'Two and two.',
  text: 'It is 4.',
  toolCalls: [{ name: 'log', input: { n: 4 } }],
}
const failAfterFirst: MockResponse = {
  text: 'partial answer',
  fail: { kind: 'server', afterEvents: 1 },
}
const stallAfterFirst: MockResponse = { text: 'partial answer', stallAfterEvents: 1 }

/** A harness whose upstream is `answering`; `others` are mocks that also count as requests. */
function harness(
  adapter: Adapter,
  answering: MockAdapter,
  others: MockAdapter[] = [],
): ContractHarness {
  return {
    adapter,
    upstreamAborted: () => answering.calls.at(-1)?.signal.aborted === true,
    lastRequest: () => answering.calls.at(-1)?.request,
    requestCount: () => [answering, ...others].reduce((n, m) => n + m.calls.length, 0),
  }
}

const replayMarkers = (turn: { items?: { data: unknown[] } | undefined }) =>
  (turn.items?.data ?? []).map((item) => JSON.stringify(item))

// Every first call fails with a retryable error before its first event, so each contract test
// runs through a retry.
function retried(model: string | undefined, then: MockResponse): ContractHarness {
  const inner = mock({ model, script: [{ fail: { kind: 'overloaded' } }, then] })
  return harness(withRetry(inner, { initialDelayMs: 1 }), inner)
}

describeAdapterContract('withRetry(mock)', {
  answer: (model) => retried(model, answer),
  failAfterFirstEvent: () => retried(undefined, failAfterFirst),
  stallAfterFirstEvent: () => retried(undefined, stallAfterFirst),
  replayMarkers,
})

// The primary always fails before its first event; a backup of the same provider and model (say,
// another region) answers, so the items' tag matches the wrapper's provider and model.
function fellBack(model: string | undefined, then: MockResponse): ContractHarness {
  const primary = mock({ model, script: [{ fail: { kind: 'rate-limit', status: 429 } }] })
  const backup = mock({ model, script: [then] })
  return harness(withFallback([primary, backup]), backup, [primary])
}

describeAdapterContract('withFallback([mock, mock])', {
  answer: (model) => fellBack(model, answer),
  failAfterFirstEvent: () => fellBack(undefined, failAfterFirst),
  stallAfterFirstEvent: () => fellBack(undefined, stallAfterFirst),
  replayMarkers,
})

// One request a minute on a fake clock: every call after the first waits for the window.
function limited(model: string | undefined, then: MockResponse): ContractHarness {
  const inner = mock({ model, script: [then] })
  const clock = fakeClock()
  return harness(withRateLimit(inner, { requestsPerMinute: 1, ...clock }), inner)
}

describeAdapterContract('withRateLimit(mock)', {
  answer: (model) => limited(model, answer),
  failAfterFirstEvent: () => limited(undefined, failAfterFirst),
  stallAfterFirstEvent: () => limited(undefined, stallAfterFirst),
  replayMarkers,
})
