/**
 * The relay's CORS preflight lets a page use the `openai` SDK (`dangerouslyAllowBrowser`) on
 * `/v1/responses`: every header the SDK sends that a browser asks leave for is allowed.
 */
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { createRelay } from '../../../src/relay/index.ts'
import { offline } from '../helpers.ts'

const ORIGIN = 'https://app.example'
/** Headers a browser sends without a preflight (CORS-safelisted, for the values the SDK sends). */
const SAFELISTED = new Set(['accept', 'accept-language', 'content-language'])

/** The names of the headers of each request the SDK makes in `run`. */
async function headersOf(run: (client: OpenAI) => Promise<unknown>): Promise<string[][]> {
  const sent: string[][] = []
  const client = new OpenAI({
    apiKey: 'relay-token',
    baseURL: 'http://relay.test/v1',
    dangerouslyAllowBrowser: true,
    maxRetries: 0,
    fetch: async (_input, init) => {
      sent.push([...new Headers(init?.headers).keys()])
      return Response.json(
        { error: { message: 'stop here', type: 'x', code: null, param: null } },
        { status: 400 },
      )
    },
  })
  await run(client).catch(() => {})
  return sent
}

describe('CORS for the openai SDK in a browser', () => {
  const relay = createRelay({ providers: offline, cors: { origins: [ORIGIN] } })

  it.each([
    ['responses.create()', (c: OpenAI) => c.responses.create({ model: 'mock/echo', input: 'Hi' })],
    [
      'responses.create({ stream: true }) with a timeout',
      (c: OpenAI) =>
        c.responses.create({ model: 'mock/echo', input: 'Hi', stream: true }, { timeout: 30_000 }),
    ],
    [
      'responses.stream()',
      (c: OpenAI) => c.responses.stream({ model: 'mock/echo', input: 'Hi' }).finalResponse(),
    ],
  ])('allows every header of %s in the preflight', async (_, run) => {
    const [names] = await headersOf(run)
    const asked = names!.filter((name) => !SAFELISTED.has(name))
    expect(asked).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'x-stainless-lang']),
    )
    const preflight = await relay.fetch(
      new Request('http://relay.test/v1/responses', {
        method: 'OPTIONS',
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': asked.join(','),
        },
      }),
    )
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    const allowed = preflight.headers.get('access-control-allow-headers')!.split(', ')
    expect(asked.filter((name) => !allowed.includes(name))).toEqual([])
  })
})
