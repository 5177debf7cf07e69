import { describeAdapterContract, type ContractHarness } from '../../adapter-contract.ts'
import type { AssistantTurn } from '../../../src/core/conversation.ts'
import type { ReplaySpec } from '../../helpers/replay-fetch.ts'
import { fixture, setup } from './support.ts'

function harness(spec: ReplaySpec, model = 'claude-sonnet-5'): ContractHarness {
  const { adapter, replay } = setup([spec], { model })
  return {
    adapter,
    upstreamAborted: () => replay.aborted(),
    lastRequest: () => replay.requests.at(-1)?.body,
    requestCount: () => replay.requests.length,
  }
}

/** The byte offset just past the first event that yields something (the first thinking delta). */
function afterFirstDelta(body: string): number {
  const at = body.indexOf('"thinking_delta"')
  return new TextEncoder().encode(body.slice(0, body.indexOf('\n\n', at) + 2)).length
}

/** The thinking signatures of a turn: they reach a request only when its items are replayed. */
function signatures(turn: AssistantTurn): string[] {
  return (turn.items?.data ?? []).flatMap((block) =>
    typeof block === 'object' &&
    block !== null &&
    'signature' in block &&
    typeof block.signature === 'string'
      ? [block.signature]
      : [],
  )
}

const answer = fixture('thinking-then-tool.sse')

describeAdapterContract('anthropic', {
  callOptions: { thinking: 'high' },
  answer: (model) => harness({ body: answer }, model),
  failAfterFirstEvent: () => harness({ body: fixture('mid-stream-error.sse') }),
  stallAfterFirstEvent: () => harness({ body: answer, stallAfterBytes: afterFirstDelta(answer) }),
  replayMarkers: signatures,
})
