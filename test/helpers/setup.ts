/** Runs before every test file (vitest `setupFiles`). */
import { afterEach, beforeEach } from 'vitest'
import { consoleError, watchConsole } from './quiet-console.ts'

let watch: ReturnType<typeof watchConsole> | undefined

beforeEach(() => {
  watch = watchConsole()
})

afterEach(() => {
  const written = watch?.written() ?? []
  watch?.stop()
  watch = undefined
  const error = consoleError(written)
  if (error !== undefined) throw error
})
