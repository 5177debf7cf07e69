import type { StopDetails, StopReason, Usage } from '../../../core/conversation.ts'
import { providerError } from '../../../core/errors.ts'
import type { Finish } from '../../../kit/guard-stream.ts'
import type { JsonRecord } from '../../../kit/json.ts'
import type { InteractionSummary } from './map-events.ts'
import { usageOf } from '../map-finish.ts'
import { sourcesOf } from './map-sources.ts'

/**
 * The statuses at which a function call that was still streaming its arguments was cut off: the
 * output limit (`incomplete`), the per-request decode limit (`requires_continuation`), and any
 * end that is not the model's own (`cancelled`, `budget_exceeded`, ...). At `completed` and
 * `requires_action` the model ended its turn: every call it began is closed.
 */
export function cutsOpenCalls(status: string | undefined): boolean {
  return status !== 'completed' && status !== 'requires_action'
}

/**
 * Our stop reason for an interaction's final status. `completed` and `requires_action` (the server
 * waits on function results) end the model's turn: calls decide `tool-calls`. `incomplete` (the
 * output limit) and `requires_continuation` (the per-request decode limit; see the items) are
 * `length`. Anything else the status says is `other`.
 */
export function mapStatus(status: string, hasToolCalls: boolean): StopReason {
  if (status === 'incomplete' || status === 'requires_continuation') return 'length'
  if (status === 'completed' || status === 'requires_action')
    return hasToolCalls ? 'tool-calls' : status === 'completed' ? 'stop' : 'other'
  return 'other'
}

/**
 * The finish record of a stream that ended at `interaction.completed`. A stream without it fails
 * with `network`; a `failed` interaction fails with `server`, naming the model output's error when
 * a step carried one; a function call whose arguments are not JSON fails the turn with
 * `invalid-output`, unless the answer was cut off (then it is dropped with a warning, as a call cut
 * off mid-arguments is). `stopDetails` carries the status when it says more than the stop reason.
 *
 * Items are the steps, then, when there are any: the continuation token of a
 * `requires_continuation` answer as `{ continuation_token }`, and the interaction's id as
 * `{ interaction_id }` when the server stored it (a caller's `store: true`), the fields as the API
 * names them. Neither is a step, so a replay leaves them out of `input`. A turn without steps has
 * no items.
 */
export function finishOf(
  summary: InteractionSummary,
  provider: string,
  warnings: string[],
): Finish {
  const { status } = summary
  if (!summary.completed || status === undefined)
    throw providerError('network', provider, 'the stream ended before the interaction completed')
  if (status === 'failed') {
    const said = summary.stepErrors.length === 0 ? '' : `: ${summary.stepErrors.join('; ')}`
    throw providerError('server', provider, `the interaction failed${said}`)
  }
  const cut = cutsOpenCalls(status)
  for (const name of summary.malformedCalls) {
    if (!cut) {
      const message = `the model's call of ${name || '(unnamed)'} has arguments that are not JSON`
      throw providerError('invalid-output', provider, message)
    }
    warnings.push(dropped(name, status))
  }
  for (const name of summary.cutCalls) warnings.push(dropped(name, status))

  const usage = mapUsage(summary.usage)
  const sources = sourcesOf(summary.citations)
  const extra = sources.length === 0 ? {} : { sources }
  const items = itemsOf(summary)
  const stopReason = mapStatus(status, summary.toolCallCount > 0)
  if (stopReason === 'stop' || stopReason === 'tool-calls')
    return { usage, stopReason, items, warnings, ...extra }
  return { usage, stopReason, stopDetails: detailsOf(status, summary), items, warnings, ...extra }
}

function dropped(name: string, status: string): string {
  return `tool call ${name || '(unnamed)'} dropped: the answer stopped (${status}) before its arguments were complete`
}

function detailsOf(status: string, summary: InteractionSummary): StopDetails {
  const explanation = summary.stepErrors.join('; ')
  return explanation === '' ? { category: status } : { category: status, explanation }
}

function itemsOf(summary: InteractionSummary): unknown[] | undefined {
  if (summary.steps.length === 0) return undefined
  const items: unknown[] = [...summary.steps]
  const token = summary.status === 'requires_continuation' ? summary.continuationToken : undefined
  if (token !== undefined) items.push({ continuation_token: token })
  if (summary.interactionId !== undefined) items.push({ interaction_id: summary.interactionId })
  return items
}

/**
 * Our usage from the interaction's `usage`. `total_input_tokens` already counts the cached tokens
 * (`total_cached_tokens`, reported as `cacheReadTokens` of it), and tool-use prompt tokens are input
 * too. Thoughts are counted apart from `total_output_tokens`, so output is both, with the thoughts
 * as `reasoningTokens`: the convention of `gemini()`, which reads generateContent's counts alike.
 */
export function mapUsage(record: JsonRecord | undefined): Usage {
  return usageOf(record, {
    input: 'total_input_tokens',
    toolUse: 'total_tool_use_tokens',
    output: 'total_output_tokens',
    thoughts: 'total_thought_tokens',
    cached: 'total_cached_tokens',
  })
}
