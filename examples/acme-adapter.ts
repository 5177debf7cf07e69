// An adapter for "Acme", a made-up API that streams Server-Sent Events:
//   event: reason  data: {"delta":"…"}                 visible reasoning
//   event: say     data: {"delta":"…"}                 the answer
//   event: call    data: {"id":"…","tool":"…","args":{…}}
//   event: end     data: {"reason":"done"|"limit"|"tool","usage":{"in":1,"out":2},"record":{…}}
import type { Adapter, AdapterFactory, StopReason } from '../src/index.ts'
import { defineAdapter, END, encodeTurns, readEventStream } from '../src/kit/index.ts'
import { httpError, isRecord, type Delta } from '../src/kit/index.ts'

type AcmeSettings = { apiKey: string; fetch?: typeof fetch }
type AcmeEnd = { reason: string; usage: { in: number; out: number }; record: unknown }
const STOP: Record<string, StopReason> = { done: 'stop', limit: 'length', tool: 'tool-calls' }

export function createAcme(settings: AcmeSettings): AdapterFactory {
  return defineAdapter({
    provider: 'acme',
    models: ['a1', 'a2'],
    model: (model) => ({
      capabilities: { thinking: { mode: 'none' }, tools: true, json: false },
      // The call's producer: it yields deltas and returns what else the turn holds, and the
      // kit's guard makes the events, the `done` turn and the errors of the contract from them.
      stream: (conversation) =>
        async function* ({ tag, signal }) {
          // Acme's own records of earlier turns go back verbatim; any other turn is re-encoded.
          const messages = encodeTurns(conversation.turns, tag, {
            user: (turn) => ({ role: 'user', content: turn.content }),
            tool: (turn) => ({ role: 'tool', results: turn.results }),
            replay: (items) => items.data[0],
            reencode: (turn) => ({ role: 'assistant', text: turn.text, calls: turn.toolCalls }),
          })
          const response = await (settings.fetch ?? fetch)('https://api.acme.example/v1/generate', {
            method: 'POST',
            headers: { authorization: `Bearer ${settings.apiKey}` },
            body: JSON.stringify({ model, messages }),
            signal,
          })
          const { status, headers } = response
          if (!response.ok)
            throw httpError({ provider: 'acme', status, message: `HTTP ${status}`, headers })
          let end: AcmeEnd | undefined
          yield* readEventStream<Delta>(response.body, {
            provider: 'acme',
            signal,
            decode({ event, data }) {
              const value: unknown = JSON.parse(data)
              if (!isRecord(value)) return undefined
              if (event === 'reason') return { type: 'thinking', text: String(value['delta']) }
              if (event === 'say') return { type: 'text', text: String(value['delta']) }
              if (event === 'call') {
                const call = {
                  id: String(value['id']),
                  name: String(value['tool']),
                  input: value['args'],
                }
                return { type: 'tool-call', call }
              }
              if (event === 'end') end = value as AcmeEnd
              return event === 'end' ? END : undefined // and skip events Acme adds later
            },
          })
          // Cut off before `end`: returning nothing makes the guard fail the stream (no `done`).
          if (end === undefined) return undefined
          const usage = { inputTokens: end.usage.in, outputTokens: end.usage.out }
          return { usage, stopReason: STOP[end.reason] ?? 'other', items: [end.record] }
        },
    }),
  })
}

export function acme({ model, ...settings }: AcmeSettings & { model: string }): Adapter {
  return createAcme(settings)(model)
}
