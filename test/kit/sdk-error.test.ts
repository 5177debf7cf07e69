import * as Anthropic from '@anthropic-ai/sdk'
import * as OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { isThinkwireError, ThinkwireError } from '../../src/core/errors.ts'
import { buildClient, sdkTransportError } from '../../src/kit/index.ts'
import { mapAnthropicError } from '../../src/providers/anthropic/map-error.ts'
import { mapCompatibleError } from '../../src/providers/openai-compatible/map-error.ts'
import { mapOpenaiError } from '../../src/providers/openai/map-error.ts'

const SDKS = [
  ['@anthropic-ai/sdk', Anthropic],
  ['openai', OpenAI],
] as const

describe('sdkTransportError', () => {
  for (const [name, sdk] of SDKS) {
    const classes = {
      APIUserAbortError: sdk.APIUserAbortError,
      APIConnectionTimeoutError: sdk.APIConnectionTimeoutError,
      APIConnectionError: sdk.APIConnectionError,
    }

    it(`maps ${name}'s abort, timeout and failed connection, keeping the SDK error as cause`, () => {
      const abort = new sdk.APIUserAbortError()
      const timeout = new sdk.APIConnectionTimeoutError()
      const refused = new sdk.APIConnectionError({ message: 'connect ECONNREFUSED 127.0.0.1:9' })
      expect(sdkTransportError(abort, 'acme', classes)).toMatchObject({
        kind: 'aborted',
        retryable: false,
        provider: 'acme',
        cause: abort,
      })
      // A timeout is also a connection error: it must not be taken for a refused connection.
      expect(sdkTransportError(timeout, 'acme', classes)).toMatchObject({
        kind: 'timeout',
        message: 'acme: the request timed out',
        retryable: true,
        cause: timeout,
      })
      expect(sdkTransportError(refused, 'acme', classes)).toMatchObject({
        kind: 'network',
        message: 'acme: connection failed: connect ECONNREFUSED 127.0.0.1:9',
        retryable: true,
        cause: refused,
      })
    })

    it(`leaves ${name}'s HTTP errors and anything else to the adapter`, () => {
      const http = sdk.APIError.generate(
        429,
        { error: { message: 'slow down' } },
        'slow down',
        new Headers(),
      )
      expect(sdkTransportError(http, 'acme', classes)).toBeUndefined()
      expect(sdkTransportError(new TypeError('fetch failed'), 'acme', classes)).toBeUndefined()
      expect(sdkTransportError('a string', 'acme', classes)).toBeUndefined()
    })
  }

  it('keeps a ThinkwireError as it is', () => {
    const error = new ThinkwireError({ kind: 'rate-limit', message: 'acme: wait' })
    expect(sdkTransportError(error, 'other', { ...OpenAI })).toBe(error)
  })

  it("does not take one SDK's errors for another's", () => {
    const refused = new Anthropic.APIConnectionError({ message: 'refused' })
    expect(sdkTransportError(refused, 'acme', { ...OpenAI })).toBeUndefined()
  })

  it('is where every Stainless SDK adapter starts: one wording for each provider', () => {
    const anthropic = mapAnthropicError(new Anthropic.APIConnectionError({ message: 'reset' }))
    const openai = mapOpenaiError(new OpenAI.APIConnectionError({ message: 'reset' }))
    const compatible = mapCompatibleError(
      new OpenAI.APIConnectionError({ message: 'reset' }),
      'groq',
    )
    expect([anthropic.message, openai.message, compatible.message]).toEqual([
      'anthropic: connection failed: reset',
      'openai: connection failed: reset',
      'groq: connection failed: reset',
    ])
    expect(mapOpenaiError(new OpenAI.APIConnectionTimeoutError())).toMatchObject({
      kind: 'timeout',
      provider: 'openai',
    })
    expect(mapCompatibleError(new OpenAI.APIUserAbortError(), 'groq')).toMatchObject({
      kind: 'aborted',
      provider: 'groq',
    })
  })
})

describe('buildClient', () => {
  it('returns the client the constructor builds', () => {
    const client = { name: 'acme client' }
    expect(buildClient('acme', () => client)).toBe(client)
  })

  it('turns a constructor that throws into an invalid-request error naming the provider, with no key in it', () => {
    const key = 'sk-ant-api03-0123456789abcdefghijklmnop'
    let thrown: unknown
    try {
      buildClient('acme', () => {
        throw new Error(`Invalid apiKey ${key}: browser use is not allowed`)
      })
    } catch (error) {
      thrown = error
    }
    expect(isThinkwireError(thrown)).toBe(true)
    expect(thrown).toMatchObject({
      kind: 'invalid-request',
      provider: 'acme',
      message: 'acme: Invalid apiKey [redacted]: browser use is not allowed',
    })
    // Nothing that holds the key goes with it: not its cause, not its stack.
    expect((thrown as Error).cause).toBeUndefined()
    expect(String((thrown as Error).stack)).not.toContain(key)
  })
})
