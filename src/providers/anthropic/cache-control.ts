import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsBase,
  TextBlockParam,
  ToolUnion,
} from '@anthropic-ai/sdk/resources/messages'
import type { CacheOptions } from '../../core/adapter.ts'

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

/**
 * Marks the request's cache breakpoints with `control`, three at most (the API takes four): the
 * system prompt (sent as a list of text blocks to carry it), the last tool, and the last block of
 * the last message that can carry one (a string content becomes a text block). The body gets new
 * system, tools and messages lists; the blocks it held, which may be a turn's stored items, are
 * copied, never changed.
 */
export function markCacheBreakpoints(
  body: MessageCreateParamsBase,
  control: CacheControlEphemeral,
): void {
  const system = body.system
  if (typeof system === 'string' && system !== '') {
    body.system = [{ type: 'text', text: system, cache_control: control }]
  } else if (Array.isArray(system) && system.length > 0) {
    body.system = withLastMarked(system, control, () => true)
  }

  const tools = body.tools
  if (tools !== undefined && tools.length > 0)
    body.tools = withLastMarked(tools, control, () => true)

  const messages = body.messages
  const last = messages.at(-1)
  // The encoder sends user and assistant messages only.
  if (last === undefined || last.role === 'system') return
  const blocks: ContentBlockParam[] =
    typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content
  const content = withLastMarked(blocks, control, takesMark)
  body.messages = [
    ...messages.slice(0, -1),
    last.role === 'user' ? { role: 'user', content } : { role: 'assistant', content },
  ]
}

/** A copy of `list` whose last item that `can` carry a mark has `cache_control`. */
function withLastMarked<T extends TextBlockParam | ToolUnion | ContentBlockParam>(
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
