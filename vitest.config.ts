import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Fails a test that writes to console.warn / console.error (test/helpers/quiet-console.ts).
    setupFiles: ['test/helpers/setup.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    // Two files at a time on a 2-core machine (Vitest would run one): the browser and workerd files
    // spend most of their time waiting on a scripted model, while the unit files use the CPU.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
})
