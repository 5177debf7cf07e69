import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsBase,
  TextBlockParam,
  ToolUnion,
} from '@anthropic-ai/sdk/resources/messages'
import type { CacheOptions } from '../../core/adapter.ts'
import { blocksOf } from './encode-conversation.ts'

/**
 * The `cache_control` that `options.cache` asks for: `ephemeral`, with `ttl: '1h'` when asked
 * (five minutes is the API's default, so `'5m'` sends none). Undefined when the call does not ask
 * for caching. A cache `key` is not an Anthropic feature (it is OpenAI's) and is ignored.
 */
export function cacheControlOf(cache: CacheOptions | undefined): CacheControlEphemeral | undefined {
  if (cache === undefined || cache === false) return undefined
  if (cache !== true && cache.ttl === '1h') return { type: 'ephemeral', ttl: '1h' }
  return { type: 'ephemeral' }
}

/** The most `cache_control` marks the API takes in one request. */
const MAX_MARKS = 4

/** Where a breakpoint of ours may go, in the order they are placed when marks run short. */
type Spot = 'last message' | 'system prompt' | 'last tool'

/**
 * Marks the request's cache breakpoints with `control`: the last block of the last message that
 * can carry one (a string content becomes a text block), the system prompt (sent as a list of text
 * blocks to carry it), and the last tool. Blocks the caller marked through `providerOptions` keep
 * their marks and count against the API's four: a breakpoint of ours goes only where it fits
 * (within four, and after every longer-lived mark and before every shorter-lived one, as the API
 * requires), and those left out are named in `warnings`. The body gets new system, tools and
 * messages lists; the blocks it held, which may be a turn's stored items, are copied, never
 * changed.
 */
export function markCacheBreakpoints(
  body: MessageCreateParamsBase,
  control: CacheControlEphemeral,
  warnings: string[],
): void {
  const system = body.system
  // A string prompt carries a mark only as a text block.
  const systemBlocks =
    typeof system === 'string'
      ? system === ''
        ? []
        : [{ type: 'text' as const, text: system }]
      : (system ?? [])
  const tools = body.tools ?? []
  const messages = body.messages
  const last = messages.at(-1)
  const lastBlocks = last === undefined ? [] : blocksOf(last.content)
  // Every block that may carry a mark, in the order the API reads them: tools, system, messages.
  const blocks: readonly Markable[] = [
    ...tools,
    ...systemBlocks,
    ...messages.flatMap((message) => blocksOf(message.content)),
  ]
  const lastMarkable = lastBlocks.findLastIndex(takesMark)
  const spots: [Spot, number][] = [
    ['last message', lastMarkable < 0 ? -1 : blocks.length - lastBlocks.length + lastMarkable],
    ['system prompt', systemBlocks.length === 0 ? -1 : tools.length + systemBlocks.length - 1],
    ['last tool', tools.length - 1],
  ]
  const marks = blocks.flatMap((block, at) => {
    const mark = markOf(block)
    return mark === undefined ? [] : [{ at, rank: rankOf(mark) }]
  })
  const callers = marks.length
  const placed = new Set<Spot>()
  const left: Spot[] = []
  const rank = rankOf(control)
  for (const [spot, at] of spots) {
    // No such block (no tools, no prompt, a last message of thinking only), or marked already.
    if (at < 0 || markOf(blocks[at]!) !== undefined) continue
    const fits =
      marks.length < MAX_MARKS &&
      marks.every((mark) => (mark.at < at ? mark.rank >= rank : mark.rank <= rank))
    if (!fits) {
      left.push(spot)
      continue
    }
    marks.push({ at, rank })
    placed.add(spot)
  }
  if (left.length > 0) {
    warnings.push(
      `cache breakpoint on the ${left.join(', ')} left out: providerOptions mark ${callers} block${callers === 1 ? '' : 's'}, and Anthropic takes ${MAX_MARKS}, longer-lived first`,
    )
  }

  if (placed.has('system prompt')) body.system = withLastMarked(systemBlocks, control, () => true)
  if (placed.has('last tool')) body.tools = withLastMarked(tools, control, () => true)
  // The encoder sends user and assistant messages only.
  if (!placed.has('last message') || last === undefined) return
  const content = withLastMarked(lastBlocks, control, takesMark)
  body.messages = [
    ...messages.slice(0, -1),
    last.role === 'user' ? { role: 'user', content } : { role: 'assistant', content },
  ]
}

/** A block of a request that may carry a mark. */
type Markable = TextBlockParam | ToolUnion | ContentBlockParam

/** The `cache_control` a block carries, if any. */
function markOf(block: Markable): unknown {
  return 'cache_control' in block && block.cache_control != null ? block.cache_control : undefined
}

/** One-hour marks must come before five-minute ones: the longer-lived rank higher. */
function rankOf(control: unknown): number {
  return typeof control === 'object' && control !== null && 'ttl' in control && control.ttl === '1h'
    ? 2
    : 1
}

/** A copy of `list` whose last item that `can` carry a mark has `cache_control`. */
function withLastMarked<T extends Markable>(
  list: readonly T[],
  control: CacheControlEphemeral,
  can: (item: T) => boolean,
): T[] {
  const out = [...list]
  const index = out.findLastIndex(can)
  if (index >= 0) out[index] = { ...out[index]!, cache_control: control }
  return out
}

/** Thinking blocks and empty text blocks cannot carry `cache_control`; every other block can. */
function takesMark(block: ContentBlockParam): boolean {
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false
  return block.type !== 'text' || block.text !== ''
}
