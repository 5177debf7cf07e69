import { describeAdapterContract, type ContractHarness } from '../../adapter-contract.ts'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import type { ReplaySpec } from '../../helpers/replay-fetch.ts'
import { fixture, setup } from './support.ts'

function harness(spec: ReplaySpec, model = 'gpt-5.4'): ContractHarness {
  const { adapter, replay } = setup([spec], { model })
  return {
    adapter,
    upstreamAborted: () => replay.aborted(),
    lastRequest: () => replay.requests.at(-1)?.body,
    requestCount: () => replay.requests.length,
  }
}

/** The byte offset just past the first event that yields something (the first summary delta). */
function afterFirstDelta(body: string): number {
  const at = body.indexOf('"response.reasoning_summary_text.delta"', body.indexOf('data:'))
  return new TextEncoder().encode(body.slice(0, body.indexOf('\n\n', at) + 2)).length
}

/** The encrypted reasoning of a turn: it reaches a request only when its items are replayed. */
function encryptedContent(turn: AssistantTurn): string[] {
  return (turn.items?.data ?? []).flatMap((item) =>
    typeof item === 'object' &&
    item !== null &&
    'encrypted_content' in item &&
    typeof item.encrypted_content === 'string'
      ? [item.encrypted_content]
      : [],
  )
}

const answer = fixture('reasoning-then-text.sse')

describeAdapterContract('openai', {
  callOptions: { thinking: 'high' },
  answer: (model) => harness({ body: answer }, model),
  failAfterFirstEvent: () => harness({ body: fixture('failed.sse') }),
  stallAfterFirstEvent: () => harness({ body: answer, stallAfterBytes: afterFirstDelta(answer) }),
  replayMarkers: encryptedContent,
})
