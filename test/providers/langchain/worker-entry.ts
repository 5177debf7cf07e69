/**
 * A Worker that streams the script of message chunks it is POSTed through `fromLangChain()` on
 * LangChain's fake streaming chat model and answers with the events as JSON: proof that the
 * adapter and `@langchain/core` run in workerd as they run in Node.
 */
import type { Event } from '../../../src/core/events.ts'
import { fromLangChain } from '../../../src/providers/langchain/index.ts'
import { chunk, RecordingChatModel, usageChunk } from './helpers.ts'

/** One message chunk as JSON: the fields of an `AIMessageChunk`, or its `usage_metadata`. */
export type ScriptedChunk = Parameters<typeof chunk>[0] | { usage: Record<string, unknown> }

/** The chat model that streams `script`. */
export function modelFor(script: readonly ScriptedChunk[]): RecordingChatModel {
  const chunks = script.map((fields) =>
    typeof fields === 'object' && 'usage' in fields ? usageChunk(fields.usage) : chunk(fields),
  )
  return new RecordingChatModel({ chunks })
}

export default {
  async fetch(request: Request): Promise<Response> {
    const script = (await request.json()) as ScriptedChunk[]
    const adapter = fromLangChain(modelFor(script))
    const events: Event[] = []
    for await (const event of adapter.stream({ turns: [{ role: 'user', content: '2 + 2?' }] }))
      events.push(event)
    return Response.json(events)
  },
}
