import { describe } from 'vitest'
import { configurationTests } from './configuration.ts'
import { demoTests } from './demo.ts'
import { durableDemoTests } from './durable-demo.ts'
import { chromiumForFile, serveDemo } from './harness.ts'

// Every test in Chromium, in one file: its suites run one after another, beside the rest of the
// suite. Run at once (as files of their own), each starved the others of the CPU and took twice
// as long. Every suite drives the same Chromium; both suites of the demo share one gated Worker.
const chromium = chromiumForFile()

describe('the demo on the gated mock model', () => {
  const demo = serveDemo(chromium)
  demoTests(demo)
  durableDemoTests(demo)
})

configurationTests(chromium)
