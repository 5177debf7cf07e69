import { isRecord } from '../../kit/json.ts'

/** The reasoning and answer text one streamed LangChain message chunk adds, in that order. */
export function deltasOf(chunk: { content: unknown; additional_kwargs?: unknown }): {
  thinking: string
  text: string
} {
  let thinking = ''
  let text = ''
  const kwargs = chunk.additional_kwargs
  if (isRecord(kwargs) && typeof kwargs['reasoning_content'] === 'string')
    thinking += kwargs['reasoning_content']
  const content = chunk.content
  if (typeof content === 'string') text += content
  else if (Array.isArray(content)) {
    for (const block of content) {
      if (!isRecord(block)) continue
      // Standard blocks (`text`, `reasoning`) and Anthropic-style `thinking` blocks.
      if (block['type'] === 'text' && typeof block['text'] === 'string') text += block['text']
      else if (block['type'] === 'reasoning' && typeof block['reasoning'] === 'string')
        thinking += block['reasoning']
      else if (block['type'] === 'thinking' && typeof block['thinking'] === 'string')
        thinking += block['thinking']
    }
  }
  return { thinking, text }
}
