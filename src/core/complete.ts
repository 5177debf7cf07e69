import type { Adapter, CallOptions } from './adapter.ts'
import type { AssistantTurn, Conversation } from './conversation.ts'
import type { Event } from './events.ts'
import { applyEvent, initialTurnState, type TurnState } from './reducer.ts'

/** Options of {@link complete}: the call options, plus a callback that sees every event. */
export type CompleteOptions = CallOptions & {
  /** Called with each event as it arrives (for progress), before the result resolves. */
  onEvent?: ((event: Event) => void) | undefined
}

/**
 * Runs one call to the end and resolves to its assistant turn. It drains the same stream as
 * `adapter.stream()` (there is no second code path), so it fails exactly as the stream does.
 *
 * @example
 * ```ts
 * const turn = await complete(mock(), { turns: [{ role: 'user', content: 'hi' }] })
 * turn.text // always a string
 * ```
 */
export async function complete(
  adapter: Adapter,
  conversation: Conversation,
  options: CompleteOptions = {},
): Promise<AssistantTurn> {
  const { onEvent, ...callOptions } = options
  let state: TurnState = initialTurnState
  for await (const event of adapter.stream(conversation, callOptions)) {
    state = applyEvent(state, event)
    onEvent?.(event)
  }
  // guardStream makes every adapter end with done or throw; this only guards hand-made adapters.
  if (state.turn === null) throw new TypeError(`${adapter.provider}: stream ended without 'done'`)
  return state.turn
}
