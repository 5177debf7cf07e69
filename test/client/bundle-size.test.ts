import { describe, expect, it } from 'vitest'
import { measureBundleSize } from '../../bench/bundle-size.ts'

describe('browser bundle', () => {
  // The budget was 6 KiB until the adapter kit: the one bounded SSE reader, the guard that builds
  // the done turn (a plain iterator, for speed) and the exhaustive wire tables cost about 1.1 KiB
  // together, while everything else got smaller. Redacting every provider's key shapes (and long
  // prefix-less secrets) from each error message, in every runtime, added about 190 B; the Chat
  // that real React apps need (tool results made JSON, a stop that is ready at once, a retry of
  // only the failed tool step, StrictMode-proof unmount, callback errors reported) about 400 B;
  // reading a finished answer's body to its end, so that browsers do not report every finished
  // request as aborted (net::ERR_ABORTED), about 140 B. 8.5 KiB keeps the growth in view.
  it('keeps thinkwire/client + thinkwire/react within 8.5 KiB gzipped, with no provider SDK', async () => {
    const size = await measureBundleSize()
    expect(size.gzipped).toBeLessThanOrEqual(8704)
    // The only package inside is the SSE parser: no provider SDK, no React, no schema library;
    // and none of the provider adapters or the relay.
    const packages = size.inputs.filter((input) => input.startsWith('node_modules/'))
    expect(packages.every((input) => input.startsWith('node_modules/eventsource-parser/'))).toBe(
      true,
    )
    expect(size.inputs.filter((input) => /^src\/(providers|relay)\//.test(input))).toEqual([])
    expect(size.inputs).toContain('src/client/relay.ts')
    expect(size.inputs).toContain('src/react/use-chat.ts')
  })
})
