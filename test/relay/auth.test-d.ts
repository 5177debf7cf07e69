import { describe, expectTypeOf, it } from 'vitest'
import {
  anyAuth,
  jwtAuth,
  type RelayAuth,
  type RelayClient,
  type RelayOptions,
  type RelayRefusal,
} from '../../src/relay/index.ts'

describe('relay auth types', () => {
  it('lets a hook name a client, refuse with a reason and a status, or refuse plainly', () => {
    expectTypeOf<(request: Request) => Promise<RelayRefusal>>().toExtend<RelayAuth>()
    expectTypeOf<{ refuse: string; status: 403 }>().toExtend<RelayClient>()
    expectTypeOf<'client-1' | null | undefined | false>().toExtend<RelayClient>()
    expectTypeOf<{ refuse: string; status: 500 }>().not.toExtend<RelayClient>()
  })

  it('makes end-user tokens an auth of createRelay, and takes the client-id key as text or bytes', () => {
    expectTypeOf(jwtAuth).returns.toEqualTypeOf<RelayAuth>()
    expectTypeOf(anyAuth).returns.toExtend<RelayAuth>()
    expectTypeOf<Uint8Array>().toExtend<NonNullable<RelayOptions['clientIdSecret']>>()
    expectTypeOf<string>().toExtend<NonNullable<RelayOptions['clientIdSecret']>>()
  })
})
