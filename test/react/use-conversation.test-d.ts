import { describe, expectTypeOf, it } from 'vitest'
import type { RelayConversation } from '../../src/client/index.ts'
import type { ChatStore } from '../../src/client/index.ts'
import type { UserTurn } from '../../src/core/conversation.ts'
import type { WireBranch } from '../../src/core/wire.ts'
import { useConversation, type ChatMessage } from '../../src/react/index.ts'

declare const relayStore: RelayConversation
declare const anyStore: ChatStore

describe('useConversation types', () => {
  it("gives a relay conversation's actions, queue and reconnecting as always there", () => {
    const result = useConversation(relayStore)
    expectTypeOf(result.queue).toEqualTypeOf<readonly UserTurn[]>()
    expectTypeOf(result.reconnecting).toEqualTypeOf<boolean>()
    expectTypeOf(result.edit).toEqualTypeOf<RelayConversation['edit']>()
    expectTypeOf(result.selectBranch).toEqualTypeOf<
      (index: number, version: number) => Promise<void>
    >()
    expectTypeOf(result.clearQueue).toEqualTypeOf<() => Promise<void>>()
    expectTypeOf(result.rename).toEqualTypeOf<(title: string) => Promise<void>>()
    expectTypeOf(result.approve).toEqualTypeOf<(approvalId: string) => Promise<void>>()
    expectTypeOf<ChatMessage['branch']>().toEqualTypeOf<WireBranch | undefined>()
    // Its own snapshot says as much: `queue` and `reconnecting` are always there.
    expectTypeOf(relayStore.getSnapshot().queue).toEqualTypeOf<readonly UserTurn[]>()
    expectTypeOf<RelayConversation>().toExtend<ChatStore>()
  })

  it('gives what any other store may lack as optional', () => {
    const result = useConversation(anyStore)
    expectTypeOf(result.queue).toEqualTypeOf<readonly UserTurn[] | undefined>()
    expectTypeOf(result.edit).toEqualTypeOf<ChatStore['edit']>()
    expectTypeOf(result.send).toEqualTypeOf<ChatStore['send']>()
    // What the store has besides its actions is not the result's.
    expectTypeOf(result).not.toHaveProperty('getSnapshot')
  })
})
