/**
 * What the relay HTTP fuzz sends: requests whose method, path, origin, authorization,
 * content-type, content-length and body (./relay-bodies.ts) vary together.
 */
import fc from 'fast-check'
import { body, type Body } from './relay-bodies.ts'
import { BASE, ORIGIN, SEAL_KEY, TOKENS } from './relay-config.ts'

/** One fuzzed request. */
export type Case = {
  method: string
  path: string
  origin: string | undefined
  authorization: string | undefined
  contentType: string | undefined
  contentLength: 'none' | 'exact' | 'less' | 'over-limit' | 'junk'
  junkLength: string
  extra: readonly (readonly [string, string])[]
  body: Body
}

// Requests

const ascii = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 30,
})

const wild = fc.record({
  method: fc.oneof(
    { weight: 8, arbitrary: fc.constant('POST') },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'GET',
        'OPTIONS',
        'PUT',
        'DELETE',
        'PATCH',
        'HEAD',
        'PROPFIND',
        'FOO',
        'post',
        'Get',
      ),
    },
  ),
  path: fc.oneof(
    { weight: 8, arbitrary: fc.constant('/v1/chat') },
    { weight: 1, arbitrary: fc.constant('/v1/models') },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '/v1/chat/',
        '/v1//chat',
        '/V1/CHAT',
        '/v1/chat?stream=1&key=x',
        '/v1/%63hat',
        '/v1/chat/../models',
        '/v1/chat;jsessionid=1',
        '/',
        '/v2/chat',
        '/v1/chat%00',
        `/${'a'.repeat(2000)}`,
        '/v1/модели',
      ),
    },
    { weight: 1, arbitrary: fc.webPath() },
  ),
  origin: fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.constant(ORIGIN) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        BASE,
        'https://evil.example',
        'null',
        `${ORIGIN}.evil.example`,
        'HTTPS://APP.EXAMPLE',
      ),
    },
  ),
  authorization: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(`Bearer ${TOKENS[0]}`, `Bearer ${TOKENS[1]}`) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        undefined,
        `bearer ${TOKENS[0]}`,
        `Bearer    ${TOKENS[1]}`,
        `Bearer ${TOKENS[0]}x`,
        `Bearer ${TOKENS[0].slice(0, -1)}`,
        `Bearer ${TOKENS[0]} ${TOKENS[1]}`,
        `Basic ${TOKENS[0]}`,
        TOKENS[0],
        'Bearer',
        'Bearer ',
        `Bearer ${SEAL_KEY}`,
      ),
    },
    { weight: 1, arbitrary: ascii.map((junk) => `Bearer ${junk}`) },
  ),
  contentType: fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/json') },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        undefined,
        'application/json; charset=utf-8',
        'Application/JSON; Charset="UTF-8"',
        'application/json ; charset=UTF-8',
        'application/json; charset=latin1',
        'text/plain',
        'application/jsonx',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        '',
      ),
    },
  ),
  contentLength: fc.oneof(
    { weight: 6, arbitrary: fc.constant('none' as const) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'exact' as const,
        'less' as const,
        'over-limit' as const,
        'junk' as const,
      ),
    },
  ),
  junkLength: fc.constantFrom('-1', 'abc', '1e3', ' 12 ', '0x10', '99999999999999999999'),
  // A second authorization or content-type is joined to the first with ', ', as fetch does.
  extra: fc.array(
    fc.tuple(
      fc.constantFrom(
        'x-junk',
        'accept',
        'x-forwarded-for',
        'cf-connecting-ip',
        'access-control-request-method',
        'authorization',
        'content-type',
      ),
      fc.oneof(ascii, fc.constantFrom(`Bearer ${TOKENS[0]}`, 'application/json')),
    ),
    { maxLength: 2 },
  ),
  body,
})

/** A request whose headers are right, so that only its body decides. */
const clean = fc.record({
  method: fc.constant('POST'),
  path: fc.constant('/v1/chat'),
  origin: fc.constantFrom(undefined, ORIGIN),
  authorization: fc.constantFrom(`Bearer ${TOKENS[0]}`, `Bearer ${TOKENS[1]}`),
  contentType: fc.constant('application/json'),
  contentLength: fc.constantFrom('none' as const, 'exact' as const),
  junkLength: fc.constant(''),
  extra: fc.constant<[string, string][]>([]),
  body,
})

/** Any request: with wild headers, or with right headers so that only the body decides. */
export const anyRequest = fc.oneof(wild, clean)
