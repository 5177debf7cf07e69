import type { StopDetails, StopReason, Usage } from '../../core/conversation.ts'
import { ThinkwireError } from '../../core/errors.ts'
import type { Finish } from '../../kit/guard-stream.ts'
import { isRecord, type JsonRecord } from '../../kit/json.ts'
import { mapSources } from './map-sources.ts'
import type { StreamedMessage } from './map-stream.ts'
import { replayableBlocks } from './replayable-blocks.ts'

/**
 * The `type` of the items record that holds the message's `container`: not a content block, kept
 * after them so that continuing the turn names the same container.
 */
export const CONTAINER_RECORD = 'thinkwire_container'

/**
 * The finish record of a complete message: its stop reason, stop details and usage as ours, what
 * it cites as `sources`, and its content blocks as the items, every block kept in order (thinking
 * with its signature, redacted thinking, server-tool blocks, compaction summaries), then the
 * message's container when it has one. A tool call that the output limit or a refusal cut off
 * (its input unfinished) is left out of the items, with any block that answers it, and named in a
 * warning, so the turn never replays half a call; in a turn that was not cut short, such a call
 * fails the turn. What the API would refuse back is left out too (see {@link replayableBlocks}):
 * empty text blocks, a cut turn's unsigned thinking, and the thinking a turn that was not paused
 * ends with. A turn left with no block has no items, and so is left out of later requests.
 */
export function mapFinish(message: StreamedMessage, warnings: readonly string[]): Finish {
  const stopReason = mapStopReason(message.stopReason)
  const notes = [...warnings]
  const cut = stopReason === 'length'
  const replayable = replayableBlocks(keptBlocks(message, stopReason, notes), {
    cut,
    paused: message.stopReason === 'pause_turn',
  })
  const content = replayable.blocks
  if (replayable.unsigned > 0)
    notes.push('thinking left out of the items: the output limit cut it off before its signature')
  if (replayable.trailing > 0)
    notes.push(
      `thinking left out of the items: ${cut ? 'the output limit cut the turn off right after it' : 'the turn ended with it'}, and the API takes back no assistant message that ends with thinking`,
    )
  const finish: Finish = { usage: mapUsage(message.usage), stopReason, warnings: notes }
  if (content.length > 0)
    finish.items = isRecord(message.container)
      ? [...content, { type: CONTAINER_RECORD, container: message.container }]
      : content
  const stopDetails = mapStopDetails(message.stopReason, message.stopDetails)
  if (stopDetails !== undefined) finish.stopDetails = stopDetails
  const sources = mapSources(content)
  if (sources.length > 0) finish.sources = sources
  return finish
}

/** The content blocks without the cut-off calls (and what answers them), each one named in `warnings`. */
function keptBlocks(
  message: StreamedMessage,
  stopReason: StopReason,
  warnings: string[],
): JsonRecord[] {
  const { content, cut } = message
  if (cut.length === 0) return content
  const cutShort = stopReason === 'length' || stopReason === 'refusal'
  const dropped = new Set<number>()
  const ids = new Set<string>()
  for (const index of cut) {
    const block = content[index]!
    const name = String(block['name'])
    if (!cutShort) {
      if (block['type'] !== 'tool_use') continue // kept as the SDK reads it
      throw new ThinkwireError({
        kind: 'server',
        message: `anthropic: the input of tool call '${name}' is not complete JSON, and the turn was not cut short`,
        provider: 'anthropic',
      })
    }
    dropped.add(index)
    const id = block['id']
    if (typeof id === 'string') ids.add(id)
    const what = block['type'] === 'tool_use' ? 'tool call' : String(block['type'])
    const by = stopReason === 'refusal' ? 'the refusal' : 'the output limit'
    warnings.push(
      `${what} '${name}' (${String(id)}) dropped: ${by} cut it off before its input was complete`,
    )
  }
  return content.filter((block, index) => {
    if (dropped.has(index)) return false
    const answers = block['tool_use_id']
    return !(typeof answers === 'string' && ids.has(answers))
  })
}

/**
 * What the API said beyond its stop reason: a refusal's `stop_details` (its `category` and
 * `explanation`), or, for a reason we have no word for (`pause_turn`, say), the reason itself as
 * the category.
 */
export function mapStopDetails(reason: unknown, details: unknown): StopDetails | undefined {
  if (reason === 'refusal') {
    if (!isRecord(details)) return undefined
    const out: StopDetails = {}
    const { category, explanation } = details
    if (typeof category === 'string' && category !== '') out.category = category
    if (typeof explanation === 'string' && explanation !== '') out.explanation = explanation
    return out.category === undefined && out.explanation === undefined ? undefined : out
  }
  if (typeof reason === 'string' && reason !== '' && mapStopReason(reason) === 'other')
    return { category: reason }
  return undefined
}

/** Anthropic's stop reason as ours. */
export function mapStopReason(reason: unknown): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop'
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length'
    case 'tool_use':
      return 'tool-calls'
    case 'refusal':
      return 'refusal'
    default:
      return 'other'
  }
}

/** Anthropic usage as ours: input counts cache reads and writes too. */
export function mapUsage(usage: JsonRecord): Usage {
  const read = count(usage['cache_read_input_tokens'])
  const write = count(usage['cache_creation_input_tokens'])
  const out: Usage = {
    inputTokens: (count(usage['input_tokens']) ?? 0) + (read ?? 0) + (write ?? 0),
    outputTokens: count(usage['output_tokens']) ?? 0,
  }
  if (read !== undefined) out.cacheReadTokens = read
  if (write !== undefined) out.cacheWriteTokens = write
  const details = usage['output_tokens_details']
  const thinking = isRecord(details) ? count(details['thinking_tokens']) : undefined
  if (thinking !== undefined) out.reasoningTokens = thinking
  return out
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined
}
