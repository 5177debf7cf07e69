import { describe, expect, it } from 'vitest'
import type { Adapter } from '../../src/core/adapter.ts'
import type { AssistantTurn, Conversation } from '../../src/core/conversation.ts'
import type { Event } from '../../src/core/events.ts'
import { gemini } from '../../src/providers/gemini/index.ts'
import { PLACEHOLDER_SIGNATURE } from '../../src/providers/gemini/encode-conversation.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { openaiCompatible, presets } from '../../src/providers/openai-compatible/index.ts'
import { replayFetch } from '../helpers/replay-fetch.ts'
import { fixture as geminiFixture } from './gemini/harness.ts'
import { fixture as compatibleFixture, offPeakClock } from './openai-compatible/harness.ts'

type Json = { [key: string]: unknown }

async function turnOf(adapter: Adapter, conversation: Conversation): Promise<AssistantTurn> {
  let done: AssistantTurn | undefined
  for await (const event of adapter.stream(conversation) as AsyncIterable<Event>)
    if (event.type === 'done') done = event.turn
  if (done === undefined) throw new Error('no done')
  return done
}

/** A Gemini request is valid: roles alternate as Gemini needs, no empty content, calls answered. */
function expectValidGeminiRequest(body: unknown): void {
  const contents = (body as { contents: { role: string; parts: Json[] }[] }).contents
  let pendingCalls = 0
  for (const content of contents) {
    expect(['user', 'model']).toContain(content.role)
    expect(content.parts.length).toBeGreaterThan(0)
    const calls = content.parts.filter((p) => 'functionCall' in p)
    const responses = content.parts.filter((p) => 'functionResponse' in p)
    if (pendingCalls > 0) expect(responses).toHaveLength(pendingCalls)
    pendingCalls = content.role === 'model' ? calls.length : 0
    // Gemini 3 refuses a replayed step whose first call has no signature.
    if (calls.length > 0) expect(typeof calls[0]?.['thoughtSignature']).toBe('string')
  }
}

/** A Chat Completions request is valid for DeepSeek: every call answered, reasoning on call turns. */
function expectValidChatRequest(body: unknown): void {
  const messages = (body as { messages: Json[] }).messages
  for (const [i, message] of messages.entries()) {
    expect(['system', 'user', 'assistant', 'tool']).toContain(message['role'])
    const calls = (message['tool_calls'] as { id: string }[] | undefined) ?? []
    if (calls.length === 0) continue
    expect(typeof message['reasoning_content']).toBe('string')
    const answers = messages.slice(i + 1, i + 1 + calls.length)
    expect(answers.map((m) => m['tool_call_id'])).toEqual(calls.map((c) => c.id))
  }
}

describe('a conversation that moves between gemini, openai-compatible and mock', () => {
  it('keeps every request valid and sends no provider another’s signatures or reasoning', async () => {
    const geminiFetch = replayFetch([
      { body: geminiFixture('function-call-signed.sse') },
      { body: geminiFixture('conversation-3-answer.sse') },
    ])
    const deepseekFetch = replayFetch([
      { body: compatibleFixture('deepseek-tool-call.sse') },
      { body: compatibleFixture('deepseek-final.sse') },
    ])
    const g = gemini({
      apiKey: 'AIzaTestKeyThatIsNotReal000000000',
      model: 'gemini-3-flash-preview',
      fetch: geminiFetch.fetch,
    })
    const d = openaiCompatible({
      ...presets.deepseek,
      model: 'deepseek-v4-flash',
      apiKey: 'sk-test-000000000000',
      fetch: deepseekFetch.fetch,
      now: offPeakClock,
    })
    const m = mock({ script: [{ thinking: 'Mock denkt nach.', text: 'Mock sagt: 14 °C.' }] })

    const conversation: Conversation = {
      turns: [{ role: 'user', content: 'Wetter in München, dann Zürich?' }],
    }
    // 1. Gemini calls a tool.
    const t1 = await turnOf(g, conversation)
    conversation.turns.push(t1, {
      role: 'tool',
      results: [{ callId: t1.toolCalls![0]!.id, name: 'get_weather', output: { temp_c: 9 } }],
    })
    // 2. DeepSeek takes over and calls a tool.
    const t2 = await turnOf(d, conversation)
    conversation.turns.push(t2, {
      role: 'tool',
      results: [{ callId: 'call_ds_01', name: 'get_weather', output: { temp_c: 14 } }],
    })
    // 3. The mock answers.
    const t3 = await turnOf(m, conversation)
    conversation.turns.push(t3, { role: 'user', content: 'Und morgen?' })
    // 4. Back to Gemini, then 5. back to DeepSeek.
    const t4 = await turnOf(g, conversation)
    conversation.turns.push(t4, { role: 'user', content: 'Danke!' })
    await turnOf(d, conversation)

    const geminiSignature = 'U0lHLWNhbGwtbXVlbmNoZW4='
    const geminiThought = 'Das Wetter in München nachsehen…'
    const deepseekReasoning = 'Das Wetter in Zürich braucht ein Werkzeug — get_weather.'

    // DeepSeek never sees Gemini's signature or thoughts, and gets its own reasoning back.
    for (const request of deepseekFetch.requests) {
      expectValidChatRequest(request.body)
      const sent = JSON.stringify(request.body)
      expect(sent).not.toContain(geminiSignature)
      expect(sent).not.toContain(geminiThought)
      expect(sent).not.toContain('thoughtSignature')
      expect(sent).not.toContain('Mock denkt nach.')
    }
    const lastDeepseek = deepseekFetch.requests[1]?.body as { messages: Json[] }
    expect(lastDeepseek.messages[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'gemini_1_0',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"München"}' },
        },
      ],
      reasoning_content: '',
    })
    expect(lastDeepseek.messages[3]).toMatchObject({ reasoning_content: deepseekReasoning })

    // Gemini gets its own signed call back verbatim, the others without reasoning.
    for (const request of geminiFetch.requests) {
      expectValidGeminiRequest(request.body)
      const sent = JSON.stringify(request.body)
      expect(sent).not.toContain(deepseekReasoning)
      expect(sent).not.toContain('reasoning_content')
      expect(sent).not.toContain('Mock denkt nach.')
    }
    const lastGemini = geminiFetch.requests[1]?.body as {
      contents: { role: string; parts: Json[] }[]
    }
    expect(lastGemini.contents[1]?.parts).toEqual([
      { text: geminiThought, thought: true },
      {
        functionCall: { name: 'get_weather', args: { city: 'München' } },
        thoughtSignature: geminiSignature,
      },
    ])
    expect(lastGemini.contents[3]?.parts).toEqual([
      {
        functionCall: { name: 'get_weather', args: { city: 'Zürich' } },
        thoughtSignature: PLACEHOLDER_SIGNATURE,
      },
    ])
    expect(lastGemini.contents[5]).toEqual({
      role: 'model',
      parts: [{ text: 'Mock sagt: 14 °C.' }],
    })

    // The mock re-encodes everything it did not make.
    const mockRequest = JSON.stringify(m.calls[0]?.request)
    expect(mockRequest).not.toContain(geminiSignature)
    expect(mockRequest).not.toContain(deepseekReasoning)
    expect(mockRequest).not.toContain(geminiThought)
  })
})
