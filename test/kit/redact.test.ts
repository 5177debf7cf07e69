import { describe, expect, it } from 'vitest'
import { ThinkwireError } from '../../src/core/errors.ts'
import { redact, redactError } from '../../src/kit/redact.ts'

// Made-up keys in each provider's real shape (length, alphabet, prefix).
const KEYS: [string, string][] = [
  ['an OpenAI key (sk-)', 'sk-Zt4mQ9wB2xR7vK1pL8nC3yH6dF0gJ5sA1eT7uI9oP2qW4rE6'],
  [
    'an OpenAI project key (sk-proj-)',
    'sk-proj-Qm3vX8_kT1pR6zW-9bN2cL7yH4dF0gJ5sA1eT7uI9oP2qW4rE6tY8uI0oP3aS5dF7gH9jK1lZ3T3BlbkFJx7Kq2Lm9Np4Rs6Tu8Vw0Xy',
  ],
  [
    'an Anthropic key (sk-ant-)',
    'sk-ant-api03-Xq7Lm2Np9Rs4Tu6Vw8Yz0Ab3Cd5Ef7Gh9Ij1Kl-3Mn5Op7Qr9St1Uv3Wx5Yz7Ab9Cd1Ef3Gh5Ij7Kl9Mn1Op3Qr5St7Uv9Wx1Yz3Ab5Cd7-Ef9GhAA',
  ],
  [
    'an OpenRouter key (sk-or-)',
    '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',
  ],
  [
    'an xAI key (xai-)',
    'xai-Rk3Jm8Pq2Wx7Zt4Lv9Nb1Hc6Gf0Ds5Ay3Eu8Io2Kp7Mq1Wr6Xs0Zt4Lv9Nb1Hc6Gf0Ds5Ay3Eu8Io2Kp7Mq',
  ],
  ['a Groq key (gsk_)', 'gsk_Tq8Wm3Xr9Zp2Lk7Nv4Bc1Hd6Gf0Js5Ay3Eu8Io2Kp7Mq1Wr6Xs0Zt4L'],
  ['a Google key (AIza)', 'AIzaSyB3x9Kq2Lm7Np4Rs6Tu8Vw0Xy1Za3Cd5E'],
  [
    'a 64-digit hex secret without a prefix',
    '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  ],
  ['a 32-character alphanumeric key without a prefix', 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'],
  ['a base64url secret holding - and _', 'q3Wz-8Lp_Xr2Tn5Vb7Mk9Hj1Gf4Ds6Aa0Cc2Ee4Ii6Oo'],
  ['a padded base64 secret', 'dGhpcyBpcyBhIHNlY3JldCBrZXkgMTIzNDU2Nzg5MA+xQ='],
  ['a key of an unlisted provider with a prefix', 'hf_Qm3vX8kT1pR6zW9bN2cL7yH4dF0gJ5sA1eT'],
]

describe('redact: provider keys and secrets', () => {
  for (const [name, key] of KEYS) {
    it(`removes ${name} whole, in prose, in JSON and after a header name`, () => {
      const texts = [
        `Incorrect API key provided: ${key}. You can find your key at the console.`,
        `{"error":{"message":"invalid key ${key}","type":"invalid_request_error"}}`,
        `x-api-key: ${key}`,
      ]
      for (const text of texts) {
        const out = redact(text)
        expect(out).toContain('[redacted]')
        expect(out).not.toContain(key.slice(4, 16))
        expect(out).not.toContain(key.slice(-8))
      }
      expect(redact(`Incorrect API key provided: ${key}. Try again.`)).toBe(
        'Incorrect API key provided: [redacted]. Try again.',
      )
    })
  }

  it('removes a bearer token in text and in an Authorization header, keeping the scheme readable', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.Qm3vX8kT1pR6zW9bN2cL7y'
    expect(redact(`the proxy sent Bearer ${jwt} upstream`)).toBe(
      'the proxy sent Bearer [redacted] upstream',
    )
    expect(redact('sent Bearer token-alpha-123456 and failed')).toBe(
      'sent Bearer [redacted] and failed',
    )
    expect(redact('Authorization: Bearer abc')).toBe('Authorization: [redacted]')
    expect(redact(`{"authorization":"Bearer ${jwt}"}`)).not.toContain('eyJ')
  })

  it('removes secrets in name=value and name: value fields', () => {
    expect(redact('api_key=abc123 and token: xyz')).toBe('api_key=[redacted] and token: [redacted]')
    expect(redact('password=hunter2, client_secret: s3cr3t, access_token=at-1')).toBe(
      'password=[redacted], client_secret: [redacted], access_token=[redacted]',
    )
    expect(redact('{"x-goog-api-key": "abc"}')).toBe('{"x-goog-api-key": "[redacted]"}')
  })

  it('removes the query string of a URL, where keys travel, and keeps its path', () => {
    const url =
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=abc'
    expect(redact(`fetch ${url} failed`)).toBe(
      'fetch https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent failed',
    )
  })

  it('redacts an error in place, keeping what it is', () => {
    const error = new ThinkwireError({
      kind: 'auth',
      message: `bad key ${KEYS[2]![1]}`,
      status: 401,
    })
    expect(redactError(error)).toBe(error)
    expect(error).toMatchObject({ message: 'bad key [redacted]', kind: 'auth', status: 401 })
    expect(error.stack).toBeDefined()
  })

  it('redacts the stack too, also one read before the message was redacted', () => {
    const key = KEYS[2]![1]
    const read = new ThinkwireError({ kind: 'auth', message: `bad key ${key}` })
    expect(read.stack).toContain(key)
    const unread = new ThinkwireError({ kind: 'auth', message: `bad key ${key}` })
    for (const error of [read, unread].map(redactError)) {
      expect(error.stack).toMatch(/^ThinkwireError: bad key \[redacted\]\n/)
      expect(error.stack).not.toContain(key.slice(4, 16))
    }
  })
})

describe('redact: what stays', () => {
  const kept = [
    ['ordinary words and counts', 'max_tokens: 5000 is too many tokens: 12'],
    ['"bearer" as a word', 'the bearer token is missing; Bearer authentication failed'],
    ['a long word without digits', 'Pneumonoultramicroscopicsilicovolcanoconiosis happens'],
    ['a long number', 'request 1737412735123456789012345678901234 failed'],
    ['a URL path', 'POST https://api.anthropic.com/v1/messages returned 529'],
    [
      'hyphenated model names',
      'model Llama-4-Maverick-17B-128E-Instruct-FP8 and claude-sonnet-4-5-20250929 not found',
    ],
    ['a UUID', 'request id 550e8400-e29b-41d4-a716-446655440000'],
    ['an Anthropic message id', 'message msg_01XFDUDYJgAACzvnptvVoYEL'],
    [
      'an Anthropic tool-use id',
      'tool_use ids were found without tool_result: toolu_01A09q90qw90lq917835lq9',
    ],
    ['an Anthropic request id', '"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"'],
    [
      'an OpenAI call id',
      'No tool output found for function call call_9Xk2Lm4Np6Rs8Tu0Vw2Yz4Ab6Cd8',
    ],
    [
      'OpenAI Responses ids',
      'Item rs_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b of resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b was not found',
    ],
    ['a chat completion id', 'id chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG'],
    ['an OpenRouter generation id', 'generation gen-1737412735-QDxbMsJXfGH6ZGSoFhpP'],
  ] as const
  for (const [name, text] of kept) {
    it(`keeps ${name}`, () => {
      expect(redact(text)).toBe(text)
    })
  }
})
