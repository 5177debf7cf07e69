import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../src/core/adapter.ts'
import type { Conversation } from '../../src/core/conversation.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { replayFetch } from '../helpers/replay-fetch.ts'
import { doneTurn, fixture as anthropicFixture, run } from './anthropic/harness.ts'
import { fixture as openaiFixture } from './openai/harness.ts'

type Block = { type: string; id?: string; tool_use_id?: string }
type Message = { role: string; content: string | Block[] }
type Item = { type?: string; role?: string; call_id?: string }

/** What the Messages API demands of `messages`: user first, roles alternating, each tool result answering a tool use just before it. */
function expectValidAnthropicMessages(messages: Message[]): void {
  expect(messages[0]?.role).toBe('user')
  messages.forEach((message, i) => {
    if (i > 0) expect(message.role).not.toBe(messages[i - 1]!.role)
    if (typeof message.content === 'string') return
    expect(message.content.length).toBeGreaterThan(0)
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue
      const previous = messages[i - 1]!.content
      const uses =
        typeof previous === 'string'
          ? []
          : previous.filter((b) => b.type === 'tool_use').map((b) => b.id)
      expect(uses).toContain(block.tool_use_id)
    }
  })
}

/** What the Responses API demands of `input`: each function output follows its call, and no foreign reasoning. */
function expectValidResponsesInput(input: Item[]): void {
  const calls = new Set<string>()
  for (const item of input) {
    if (item.type === 'function_call') calls.add(item.call_id!)
    if (item.type === 'function_call_output') expect(calls.has(item.call_id!)).toBe(true)
    expect(['thinking', 'redacted_thinking', 'tool_use', 'tool_result']).not.toContain(item.type)
  }
}

describe('switching providers mid-conversation', () => {
  it('goes from Anthropic to OpenAI and back with valid requests and no reasoning from the other provider', async () => {
    const claudeWire = replayFetch([
      { body: anthropicFixture('thinking-then-tool.sse') },
      { body: anthropicFixture('answer-after-tool.sse') },
    ])
    const gptWire = replayFetch([{ body: openaiFixture('reasoning-then-text.sse') }])
    const claude = anthropic({
      apiKey: 'sk-ant-test-0123456789',
      model: 'claude-sonnet-5',
      fetch: claudeWire.fetch,
    })
    const gpt = openai({ apiKey: 'sk-test-0123456789', model: 'gpt-5.4', fetch: gptWire.fetch })
    const options: CallOptions = {
      thinking: 'medium',
      tools: [
        {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
    }
    const conversation: Conversation = {
      system: 'Weather bot.',
      turns: [{ role: 'user', content: 'Weather in Paris?' }],
    }

    const fromClaude = doneTurn((await run(claude.stream(conversation, options))).events)
    conversation.turns.push(fromClaude, {
      role: 'tool',
      results: [{ callId: 'toolu_01Weather', name: 'get_weather', output: '18 °C' }],
    })
    const fromGpt = doneTurn((await run(gpt.stream(conversation, options))).events)
    conversation.turns.push(fromGpt, { role: 'user', content: 'And in Tokyo?' })
    const back = await run(claude.stream(conversation, options))
    expect(back.error).toBeUndefined()

    const toGpt = gptWire.requests[0]!.body as { input: Item[] }
    expectValidResponsesInput(toGpt.input)
    const toGptText = JSON.stringify(toGpt)
    expect(toGptText).not.toContain('EqQBCkYIAxgCKkBsigThinkingToolFixture')
    expect(toGptText).not.toContain('I should call get_weather')
    expect(toGpt.input).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: 'Checking the weather → one moment 🌦️.' },
      {
        type: 'function_call',
        call_id: 'toolu_01Weather',
        name: 'get_weather',
        arguments: '{"city":"Paris","note":"café → ok"}',
      },
      { type: 'function_call_output', call_id: 'toolu_01Weather', output: '18 °C' },
    ])

    const toClaude = claudeWire.requests[1]!.body as { messages: Message[] }
    expectValidAnthropicMessages(toClaude.messages)
    const toClaudeText = JSON.stringify(toClaude)
    expect(toClaudeText).not.toContain('gAAAAABpReasoningFixtureEncrypted')
    expect(toClaudeText).not.toContain('Then answer')
    expect(toClaude.messages[1]!.content).toEqual(fromClaude.items!.data)
    expect(toClaude.messages.slice(2)).toEqual([
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_01Weather', content: '18 °C' }],
      },
      {
        role: 'assistant',
        content: [{ type: 'text', text: '9.8 is larger → because 0.80 > 0.11 ✅' }],
      },
      { role: 'user', content: 'And in Tokyo?' },
    ])
  })
})
