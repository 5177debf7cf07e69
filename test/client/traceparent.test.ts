/**
 * `traceparent()` from `thinkwire/client`: a W3C Trace Context header value that the relay reads
 * back as the caller's trace, sent per call through `relay({ headers })`, and left out of the
 * bundle of an app that does not import it.
 */
import { build } from 'esbuild'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { relay, traceparent } from '../../src/client/index.ts'
import { complete } from '../../src/core/complete.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { createRelay, type RelaySpan } from '../../src/relay/index.ts'
import { parseTraceparent } from '../../src/relay/tracing.ts'

const FORMAT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/

describe('traceparent()', () => {
  it('makes version 00, a 16-byte trace id, an 8-byte span id and the sampled flag', () => {
    const value = traceparent()
    expect(value).toMatch(FORMAT)
    const [, traceId, spanId, flags] = FORMAT.exec(value)!
    expect(traceId).not.toMatch(/^0+$/)
    expect(spanId).not.toMatch(/^0+$/)
    expect(flags).toBe('01')
    expect(parseTraceparent(value)).toEqual({ traceId, spanId, sampled: true })
  })

  it('makes new random ids on every call', () => {
    const values = Array.from({ length: 200 }, () => traceparent())
    const ids = (at: number) => new Set(values.map((value) => FORMAT.exec(value)![at]))
    expect(ids(1).size).toBe(200)
    expect(ids(2).size).toBe(200)
  })

  it('joins a given trace with a new span, and clears the sampled flag when asked', () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
    const first = parseTraceparent(traceparent({ traceId }))
    const second = parseTraceparent(traceparent({ traceId, sampled: false }))
    expect(first).toMatchObject({ traceId, sampled: true })
    expect(second).toMatchObject({ traceId, sampled: false })
    expect(first?.spanId).not.toBe(second?.spanId)
  })

  it.each(['', '4BF92F3577B34DA6A3CE929D0E0E4736', '0'.repeat(32), 'abc', 'g'.repeat(32)])(
    'refuses the trace id %j, naming it',
    (traceId) => {
      expect(() => traceparent({ traceId })).toThrow(
        `traceparent: traceId must be 32 lowercase hex digits, not all zero, got ${JSON.stringify(traceId)}`,
      )
    },
  )

  it('is sent by relay() with each call, and the relay’s span continues that trace', async () => {
    const spans: RelaySpan[] = []
    const server = createRelay({
      providers: { mock: [mock()] },
      tracing: { exporter: { export: (batch) => void spans.push(...batch) } },
    })
    const sent: (string | null)[] = []
    const adapter = relay({
      url: 'http://relay.test',
      model: 'mock/echo',
      headers: () => ({ traceparent: traceparent() }),
      fetch: async (input, init) => {
        const request = new Request(input, init)
        sent.push(request.headers.get('traceparent'))
        const waited: Promise<unknown>[] = []
        const response = await server.fetch(request, { waitUntil: (p) => void waited.push(p) })
        // The span is exported once the answer has been read.
        const body = await response.text()
        await Promise.all(waited)
        return new Response(body, { status: response.status, headers: response.headers })
      },
    })
    const conversation = { turns: [{ role: 'user' as const, content: 'Hi' }] }
    await complete(adapter, conversation)
    await complete(adapter, conversation)
    expect(sent).toHaveLength(2)
    expect(sent[0]).not.toBe(sent[1])
    expect(spans).toHaveLength(2)
    spans.forEach((span, i) => {
      const parent = parseTraceparent(sent[i]!)!
      expect(span.traceId).toBe(parent.traceId)
      expect(span.parentSpanId).toBe(parent.spanId)
    })
  })

  it('adds no byte to the bundle of an app that imports relay and useChat only', async () => {
    // The bundle the size budget measures (bench/bundle-size.ts), and which files put bytes in it.
    const result = await build({
      stdin: {
        contents: [
          "export { relay } from './src/client/index.ts'",
          "export { useChat } from './src/react/index.ts'",
        ].join('\n'),
        resolveDir: fileURLToPath(new URL('../..', import.meta.url)),
        loader: 'ts',
      },
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      external: ['react', 'react-dom'],
      write: false,
      metafile: true,
      logLevel: 'silent',
    })
    const [output] = Object.values(result.metafile.outputs)
    expect(output?.inputs['src/client/relay.ts']?.bytesInOutput).toBeGreaterThan(0)
    expect(output?.inputs['src/client/trace.ts']?.bytesInOutput ?? 0).toBe(0)
    expect(result.outputFiles[0]!.text).not.toContain('lowercase hex digits')
  })
})
