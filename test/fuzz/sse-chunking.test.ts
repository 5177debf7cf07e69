import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PROPERTY_TEST_TIMEOUT_MS, timeBound } from '../helpers/property.ts'
import { fixtureChunkingProperty, providerFixtures, relayChunkingProperty } from './sse-chunking.ts'

// The kit's reader cuts each fixture at every single byte offset (test/kit/fixture-splits.test.ts),
// the provider tests at a few chosen cuts, and test/client cuts one fixed relay answer at random;
// here the events themselves are random (every line ending, field names and any Unicode inside the
// text), and fixtures are cut at many points at once, through their adapters.

describe('SSE under random chunk boundaries', () => {
  it(
    'gives relay() exactly the events the relay encoded, however the bytes are cut',
    async () => {
      await fc.assert(relayChunkingProperty(4), {
        numRuns: 150,
        seed: 20_260_703,
        plugins: timeBound(),
      })
    },
    PROPERTY_TEST_TIMEOUT_MS,
  )

  const fixtures = providerFixtures()

  it('finds a fixture of every provider', () => {
    const providers = new Set(fixtures.map((f) => f.name.split('/')[0]))
    expect([...providers].toSorted()).toEqual([
      'anthropic',
      'gemini',
      'gemini-interactions',
      'openai',
      'openai-compatible',
    ])
  })

  for (const fixture of fixtures) {
    it(
      `reads ${fixture.name} identically when cut at many random points at once`,
      async () => {
        await fixtureChunkingProperty(fixture, 20, 20_260_704, timeBound())
      },
      PROPERTY_TEST_TIMEOUT_MS,
    )
  }
})
