import { expect, it } from 'vitest'
import { describeRuntime } from './describe-runtime.ts'

// The contract in real headless Chromium, on a page that loads the bundled runner from memory.
describeRuntime('chromium', (host) => {
  it('bundles every adapter for the browser without a Node module', () => {
    const inputs = Object.values(host().metafile?.inputs ?? {})
    expect(inputs.length).toBeGreaterThan(0)
    const imports = inputs.flatMap((input) => input.imports)
    expect(imports.filter((entry) => entry.external || entry.path.startsWith('node:'))).toEqual([])
  })
})
