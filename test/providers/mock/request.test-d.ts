import { describe, expectTypeOf, it } from 'vitest'
import type { ToolResult, UserTurn } from '../../../src/index.ts'
import type { MockRequestTurn } from '../../../src/providers/mock/index.ts'

describe("a mock call's request", () => {
  it('types its user and tool turns as the conversation types them', () => {
    type Sent<Role> = Extract<MockRequestTurn, { role: Role }>
    expectTypeOf<Sent<'user'>['content']>().toEqualTypeOf<UserTurn['content']>()
    expectTypeOf<Sent<'tool'>['results']>().toEqualTypeOf<ToolResult[]>()
  })
})
