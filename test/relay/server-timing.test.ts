/**
 * `server-timing` on chat answers: the relay's own checks and the upstream's time to its first
 * event (or its whole answer, or its failure), readable by a page on another allowed origin.
 */
import { describe, expect, it } from 'vitest'
import { mock } from '../../src/providers/mock/index.ts'
import { createRelay } from '../../src/relay/index.ts'
import { ask, chat } from './helpers.ts'

/** The metrics of a `server-timing` header, by name. */
function metrics(header: string | null): Map<string, { dur: number; desc: string }> {
  const out = new Map<string, { dur: number; desc: string }>()
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().split(';')
    const get = (key: string) => params.find((p) => p.startsWith(`${key}=`))?.slice(key.length + 1)
    out.set(name!, { dur: Number(get('dur')), desc: (get('desc') ?? '').replaceAll('"', '') })
  }
  return out
}

describe('server-timing', () => {
  it('splits a streamed answer into the relay’s checks and the upstream’s first event', async () => {
    const relay = createRelay({
      providers: { mock: [mock({ script: [{ text: 'Hallo' }], delayMs: 5 })] },
      cors: { origins: ['https://app.test'] },
    })
    const response = await chat(
      relay,
      { model: 'mock/echo', conversation: { turns: ask() } },
      {
        headers: { origin: 'https://app.test' },
      },
    )
    await response.text()
    const timing = metrics(response.headers.get('server-timing'))
    expect([...timing.keys()]).toEqual(['relay', 'upstream'])
    expect(timing.get('relay')).toMatchObject({ desc: 'checks' })
    expect(timing.get('upstream')).toMatchObject({ desc: 'first event' })
    for (const { dur } of timing.values()) expect(dur).toBeGreaterThanOrEqual(0)
    expect(response.headers.get('access-control-expose-headers')).toContain('server-timing')
    expect(response.headers.get('timing-allow-origin')).toBe('https://app.test')
  })

  it('times a failure before the first event, and a whole answer that does not stream', async () => {
    const relay = createRelay({
      providers: {
        mock: [mock({ model: 'broken', script: [{ fail: { kind: 'server' } }] }), mock()],
      },
    })
    const failed = await chat(relay, { model: 'mock/broken', conversation: { turns: ask() } })
    expect(failed.status).toBe(502)
    expect(metrics(failed.headers.get('server-timing')).get('upstream')?.desc).toBe('first event')
    const once = await relay.fetch(
      new Request('http://relay.test/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'Hi' }] }),
      }),
    )
    expect(once.status).toBe(200)
    expect(metrics(once.headers.get('server-timing')).get('upstream')?.desc).toBe('answer')
  })
})
