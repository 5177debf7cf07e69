import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
})
