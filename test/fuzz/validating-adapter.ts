/**
 * An adapter for fuzzing the relay: it answers like the mock, records every call, and checks what
 * it received against the contract (and every seal against the relay's key). Two phrases in the
 * last user message make it fail, with its key in the message as a careless SDK would put it, so
 * a run also proves that the relay never passes a key on.
 */
import type { Adapter } from '../../src/core/adapter.ts'
import type { Conversation } from '../../src/core/conversation.ts'
import { mock, type MockResponse } from '../../src/providers/mock/index.ts'
import type { Sealer } from '../../src/relay/seal.ts'
import { conversationProblems, optionsProblems } from './contract-check.ts'

/** The last user message holds this: the call fails before its first event. */
export const FAIL_BEFORE = '#fail-before-first-event'
/** The last user message holds this: the call fails after its first event. */
export const FAIL_AFTER = '#fail-after-first-event'

/** A validating adapter, what it was called with, and what was wrong with it. */
export type ValidatingAdapter = Adapter & {
  readonly calls: number
  readonly problems: readonly string[]
}

function lastUserText(conversation: Conversation): string {
  const last = conversation.turns.findLast((turn) => turn.role === 'user')
  if (last === undefined) return ''
  if (typeof last.content === 'string') return last.content
  return last.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ')
}

/**
 * Creates the adapter `fuzz/echo`. `apiKeys[0]` goes into the message of a failure before the
 * first event, `apiKeys[1]` into one after it.
 */
export function validatingAdapter(
  sealer: Sealer,
  apiKeys: readonly [string, string],
): ValidatingAdapter {
  const problems: string[] = []
  let calls = 0
  const answer = (conversation: Conversation): MockResponse => {
    const text = lastUserText(conversation)
    if (text.includes(FAIL_BEFORE)) {
      return { fail: { kind: 'auth', message: `Incorrect API key provided: ${apiKeys[0]}.` } }
    }
    if (text.includes(FAIL_AFTER)) {
      return {
        text: 'Un début de réponse',
        fail: {
          kind: 'server',
          afterEvents: 1,
          message: `upstream refused x-api-key: ${apiKeys[1]}`,
        },
      }
    }
    return { thinking: 'Je réfléchis.', text: `Reçu ${text.length} caractères.` }
  }
  const inner = mock({
    provider: 'fuzz',
    model: 'echo',
    chunkSize: 64,
    script: (call) => answer(call.conversation),
  })
  return {
    provider: 'fuzz',
    model: 'echo',
    get calls() {
      return calls
    },
    problems,
    async *stream(conversation, options = {}) {
      calls++
      const found = [...conversationProblems(conversation), ...optionsProblems(options)]
      for (const [i, turn] of conversation.turns.entries()) {
        if (turn.role !== 'assistant' || turn.items === undefined) continue
        if ((await sealer.check(turn)) !== 'valid')
          found.push(`turns[${i}].items has no valid seal`)
      }
      problems.push(...found)
      yield* inner.stream(conversation, options)
    },
  }
}
