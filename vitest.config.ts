import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Fails a test that writes to console.warn / console.error (test/helpers/quiet-console.ts).
    setupFiles: ['test/helpers/setup.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
})
