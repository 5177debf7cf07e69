import { describe, expect, it, vi } from 'vitest'
import { consoleError, watchConsole } from './quiet-console.ts'

describe('the quiet console guard', () => {
  it('records what reaches console.warn and console.error, and names it in the failure', () => {
    const watch = watchConsole()
    try {
      console.warn('%s is deprecated', 'claude-old')
      console.error(new Error('boom'))
      console.info('not watched')
    } finally {
      watch.stop()
    }
    const written = watch.written()
    expect(written).toHaveLength(2)
    expect(written[0]).toBe('console.warn: claude-old is deprecated')
    expect(written[1]).toMatch(/^console\.error: Error: boom/)
    expect(consoleError(written)?.message).toMatch(/wrote to the console[\s\S]*claude-old/)
  })

  it('passes a test that wrote nothing, and restores the console', () => {
    const before = console.warn
    const watch = watchConsole()
    expect(console.warn).not.toBe(before)
    watch.stop()
    expect(console.warn).toBe(before)
    expect(consoleError(watch.written())).toBeUndefined()
  })

  it('does not see output a test expects and spies on', () => {
    const watch = watchConsole()
    const spy = vi.spyOn(console, 'warn').mockImplementation(() => {})
    console.warn('expected')
    expect(spy).toHaveBeenCalledWith('expected')
    spy.mockRestore()
    watch.stop()
    expect(watch.written()).toEqual([])
  })
})
