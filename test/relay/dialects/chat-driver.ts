/** `POST /v1/chat` (thinkwire's own SSE) for the dialect conformance table. */
import type { AssistantTurn, Turn } from '../../../src/core/conversation.ts'
import type { WireError } from '../../../src/core/wire.ts'
import { readSse } from '../sse-reader.ts'
import type { DialectDriver, DriverAnswer } from './driver.ts'

export const chatDriver: DialectDriver = {
  name: '/v1/chat',
  path: '/v1/chat',
  nonStreaming: false,
  request(call) {
    const turns: Turn[] = call.turns.map((turn): Turn => {
      switch (turn.role) {
        case 'user':
          return { role: 'user', content: turn.text }
        case 'assistant':
          return turn.answer.echo as AssistantTurn
        case 'tool':
          return {
            role: 'tool',
            results: turn.results.map((r) => ({ callId: r.id, name: r.name, output: r.output })),
          }
      }
    })
    const body: Record<string, unknown> = { model: call.model, conversation: { turns } }
    if (call.tools !== undefined) body['tools'] = call.tools
    if (call.thinking !== undefined) body['thinking'] = call.thinking ? 'high' : 'off'
    return { body }
  },
  auth: (token) => ({ authorization: `Bearer ${token}` }),
  async read(response) {
    if (response.headers.get('content-type') === 'application/json') {
      const { error } = (await response.json()) as { error: WireError }
      return { ok: false, status: response.status, message: error.message, afterFirstEvent: false }
    }
    const { events } = await readSse(response)
    const last = events.at(-1)
    if (last?.event === 'error') {
      const error = JSON.parse(last.data) as WireError
      const afterFirstEvent = events.length > 1
      return { ok: false, status: response.status, message: error.message, afterFirstEvent }
    }
    if (last?.event !== 'done') throw new Error(`a /v1/chat stream ended with ${last?.event}`)
    const { turn } = JSON.parse(last.data) as { turn: AssistantTurn }
    let text = ''
    let thinking = ''
    for (const event of events) {
      if (event.event === 'text') text += (JSON.parse(event.data) as { text: string }).text
      if (event.event === 'thinking') thinking += (JSON.parse(event.data) as { text: string }).text
    }
    if (text !== turn.text) throw new Error('the text events do not add up to the turn’s text')
    const answer: DriverAnswer = {
      text,
      thinking,
      toolCalls: (turn.toolCalls ?? []).map(({ id, name, input }) => ({ id, name, input })),
      usage: { inputTokens: turn.usage.inputTokens, outputTokens: turn.usage.outputTokens },
      echo: turn,
    }
    return { ok: true, status: response.status, answer }
  },
}
