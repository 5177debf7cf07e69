import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Turn } from '../../../src/core/conversation.ts'
import { anthropicRequestProblems } from '../../contract/upstreams/anthropic.ts'
import { run } from '../../helpers/stream.ts'
import { fixture, sentBody, setup, turnThenNext } from './harness.ts'

const question: Turn = { role: 'user', content: 'How do I get into my neighbour’s Wi-Fi?' }
const rephrased: Turn = { role: 'user', content: 'How do I secure my own Wi-Fi → WPA3?' }

describe('anthropic: a refused turn', () => {
  it('stays in the conversation for display, and the next request leaves it out', async () => {
    const { events, turn, next } = await turnThenNext(fixture('refusal.sse'), () => [rephrased], {
      question: [question],
    })
    expect(events.slice(0, -1)).toEqual([
      { type: 'text', text: 'I can’t help with that — ' },
      { type: 'text', text: 'sorry.' },
    ])
    expect(turn).toMatchObject({
      text: 'I can’t help with that — sorry.',
      stopReason: 'refusal',
      stopDetails: { category: 'cyber', explanation: 'Blocked under the usage policy.' },
    })
    expect(turn.warnings).toBeUndefined()
    expect(turn.items?.data).toEqual([{ type: 'text', text: 'I can’t help with that — sorry.' }])
    // The API asks that the refused turn not be sent again: it would refuse on.
    expect(next['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: question.content },
          { type: 'text', text: rephrased.content },
        ],
      },
    ])
    expect(JSON.stringify(next)).not.toContain('help with that')
    expect(anthropicRequestProblems(next)).toEqual([])
  })

  it('from another model is left out too, with the results of the calls it made', async () => {
    const { adapter, replay } = setup([{ body: fixture('answer-after-tool.sse') }])
    const foreign: AssistantTurn = {
      role: 'assistant',
      text: 'Scanning the network → ',
      toolCalls: [{ id: 'call_scan', name: 'scan', input: { range: '192.168.1.0/24' } }],
      usage: { inputTokens: 9, outputTokens: 4 },
      stopReason: 'refusal',
      items: { provider: 'openai', model: 'gpt-5.4', thinkingMode: 'default', data: [] },
    }
    const turns: Turn[] = [
      question,
      foreign,
      { role: 'tool', results: [{ callId: 'call_scan', name: 'scan', output: '3 hosts' }] },
      rephrased,
    ]
    const { error } = await run(adapter.stream({ turns }))
    expect(error).toBeUndefined()
    const next = sentBody(replay)
    expect(next['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: question.content },
          { type: 'text', text: rephrased.content },
        ],
      },
    ])
    expect(anthropicRequestProblems(next)).toEqual([])
  })
})
