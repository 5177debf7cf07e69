import { describe, expect, it } from 'vitest'
import {
  BROWSER_PATHS,
  BUNDLE_BUDGETS,
  measureBundleSize,
  type BrowserPath,
} from '../../bench/bundle-size.ts'

/** The files of each path's client and hook. */
const FILES: Record<BrowserPath, [client: string, hook: string]> = {
  'relay + useChat': ['src/client/relay.ts', 'src/react/use-chat.ts'],
  'relayConversation + useConversation': [
    'src/client/conversation.ts',
    'src/react/use-conversation.ts',
  ],
}

describe('browser bundle', () => {
  // What a browser app ships to talk to a relay, gzipped, React external (bench/bundle-size.ts).
  // The budget of each path is in BUNDLE_BUDGETS, with what it holds and why it is what it is.
  for (const path of Object.keys(BROWSER_PATHS) as BrowserPath[]) {
    const budget = BUNDLE_BUDGETS[path]
    it(`keeps ${path} within ${budget} B gzipped, with no provider SDK`, async () => {
      const size = await measureBundleSize(path)
      expect(size.gzipped).toBeLessThanOrEqual(budget)
      // No package at all: no provider SDK, no React, no schema library, no SSE library (the
      // kit's own parser reads the stream); and none of the provider adapters, the relay, or the
      // prices (the relay prices each turn).
      expect(size.inputs.filter((input) => input.startsWith('node_modules/'))).toEqual([])
      expect(size.inputs).toContain('src/kit/sse-parser.ts')
      expect(size.inputs.filter((input) => /^src\/(providers|relay)\//.test(input))).toEqual([])
      expect(size.modules.map(([file]) => file)).not.toContain('src/core/pricing.ts')
      // Nor redaction: the browser holds no provider key, and the relay redacts what it sends.
      expect(size.modules.map(([file]) => file)).not.toContain('src/kit/redact.ts')
      const [client, hook] = FILES[path]
      expect(size.modules.map(([file]) => file)).toEqual(expect.arrayContaining([client, hook]))
    })
  }
})
