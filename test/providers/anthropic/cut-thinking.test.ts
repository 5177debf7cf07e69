import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Turn } from '../../../src/core/conversation.ts'
import { anthropicRequestProblems } from '../../contract/upstreams/anthropic.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import { fixture, messageOf, sentBody, setup, thinkingBlock, turnThenNext } from './harness.ts'

const question: Turn = { role: 'user', content: 'Prove that 1 + 2 + … + n = n(n + 1)/2.' }
const goOn: Turn = { role: 'user', content: 'Go on, more briefly.' }

const TRAILING =
  'thinking left out of the items: the output limit cut the turn off right after it, and the API takes back no assistant message that ends with thinking'
const UNSIGNED = 'thinking left out of the items: the output limit cut it off before its signature'

describe('anthropic: a turn the output limit cut right after its thinking', () => {
  it('has no items and a warning, and the next request leaves it out', async () => {
    const { events, turn, next } = await turnThenNext(
      fixture('thinking-cut-off.sse'),
      () => [goOn],
      { question: [question], options: { thinking: 'high' } },
    )
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: 'Prove it for n = 1 → trivial; ' },
      { type: 'thinking', text: 'then n → n + 1, Schritt für Schritt 🧮' },
    ])
    expect(turn).toMatchObject({
      text: '',
      thinking: 'Prove it for n = 1 → trivial; then n → n + 1, Schritt für Schritt 🧮',
      stopReason: 'length',
      warnings: [TRAILING],
    })
    expect(turn.items).toBeUndefined()
    // The question and the next one go as one user message: the API sees no assistant turn.
    expect(next['messages']).toEqual([
      { role: 'user', content: `${question.content as string}\n\n${goOn.content as string}` },
    ])
    expect(JSON.stringify(next)).not.toContain('ThinkingCutOffFixture')
    expect(anthropicRequestProblems(next)).toEqual([])
  })

  it('cut inside the thinking, before its signature, has no items either', async () => {
    const { events, turn, next } = await turnThenNext(
      fixture('thinking-cut-inside.sse'),
      () => [goOn],
      { question: [question] },
    )
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: 'Les cas à traiter → d’abord ' },
      { type: 'thinking', text: 'n = 0, puis…' },
    ])
    expect(turn).toMatchObject({ text: '', stopReason: 'length', warnings: [UNSIGNED] })
    expect(turn.items).toBeUndefined()
    expect(JSON.stringify(next)).not.toContain('"signature":""')
    expect(next['messages']).toEqual([
      { role: 'user', content: `${question.content as string}\n\n${goOn.content as string}` },
    ])
  })

  it('whose only tool call was cut off leaves out the thinking that came before the call', async () => {
    const body = messageOf(
      [
        thinkingBlock('Call save → with the whole proof.', 'EqQBSavePlanSig=='),
        [
          { type: 'tool_use', id: 'toolu_01Save', name: 'save', input: {} },
          [{ type: 'input_json_delta', partial_json: '{"proof": "Induction on n' }],
        ],
      ],
      'max_tokens',
    )
    const { events, turn, next } = await turnThenNext(body, () => [goOn], {
      question: [question],
      options: { tools: [{ name: 'save', parameters: { type: 'object' } }] },
    })
    expect(events.map((event) => event.type)).toEqual(['thinking', 'done'])
    expect(turn.toolCalls).toBeUndefined()
    expect(turn.warnings).toEqual([
      "tool call 'save' (toolu_01Save) dropped: the output limit cut it off before its input was complete",
      TRAILING,
    ])
    expect(turn.items).toBeUndefined()
    expect((next['messages'] as unknown[]).length).toBe(1)
    expect(JSON.stringify(next)).not.toContain('EqQBSavePlanSig')
  })

  it('keeps signed thinking that text follows, and leaves out only the thinking it ends with', async () => {
    const body = messageOf(
      [
        thinkingBlock('Induction → base case, then the step.', 'EqQBFirstThoughtSig=='),
        [{ type: 'text', text: '' }, [{ type: 'text_delta', text: 'Base case: 1 = 1·2/2 ✓. ' }]],
        thinkingBlock('Now the step → n + 1.', 'EqQBProgressNoteSig=='),
      ],
      'max_tokens',
    )
    const { events, turn, next } = await turnThenNext(body, () => [goOn], { question: [question] })
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: 'Induction → base case, then the step.' },
      { type: 'text', text: 'Base case: 1 = 1·2/2 ✓. ' },
      { type: 'thinking', text: '\n\n' },
      { type: 'thinking', text: 'Now the step → n + 1.' },
    ])
    expect(turn.warnings).toEqual([TRAILING])
    const kept = [
      {
        type: 'thinking',
        thinking: 'Induction → base case, then the step.',
        signature: 'EqQBFirstThoughtSig==',
      },
      { type: 'text', text: 'Base case: 1 = 1·2/2 ✓. ' },
    ]
    expect(turn.items?.data).toEqual(kept)
    expect(next['messages']).toEqual([question, { role: 'assistant', content: kept }, goOn])
    expect(anthropicRequestProblems(next)).toEqual([])
  })

  it('stored with its unsigned or trailing thinking (before the adapter left them out) is sent without it', async () => {
    const { adapter, replay } = setup([{ body: fixture('answer-after-tool.sse') }])
    const tag = { provider: 'anthropic', model: 'claude-sonnet-5', thinkingMode: 'default' }
    const stored = (data: unknown[]): AssistantTurn => ({
      role: 'assistant',
      text: '',
      usage: { inputTokens: 30, outputTokens: 1024 },
      stopReason: 'length',
      items: { ...tag, data },
    })
    const unsigned = { type: 'thinking', thinking: 'Les cas → ', signature: '' }
    const signed = { type: 'thinking', thinking: 'Base case.', signature: 'EqQBStoredSig==' }
    const text = { type: 'text', text: '1 = 1 ✓' }
    const { error } = await run(
      adapter.stream({
        turns: [
          question,
          stored([unsigned]),
          goOn,
          stored([signed, text, signed]),
          { role: 'user', content: 'And the step?' },
        ],
      }),
    )
    expect(error).toBeUndefined()
    expect(sentBody(replay)['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: question.content },
          { type: 'text', text: goOn.content },
        ],
      },
      { role: 'assistant', content: [signed, text] },
      { role: 'user', content: 'And the step?' },
    ])
    expect(anthropicRequestProblems(sentBody(replay))).toEqual([])
    // What the adapter left out is what the API refuses, as the contract's rules say it.
    expect(
      anthropicRequestProblems({
        messages: [
          question,
          { role: 'assistant', content: [signed, text, signed] },
          { role: 'user', content: 'And the step?' },
          { role: 'assistant', content: [signed, { type: 'text', text: '' }] },
        ],
      }),
    ).toEqual([
      'messages[1] ends with a thinking block',
      'messages[3].content[1] is an empty text block',
    ])
  })

  it('but not cut short keeps its thinking: a turn that answered is replayed whole', async () => {
    const { adapter, replay } = setup([
      { body: fixture('thinking-then-tool.sse') },
      { body: fixture('answer-after-tool.sse') },
    ])
    const first = await run(adapter.stream({ turns: [question] }))
    const turn = doneTurn(first.events)
    expect(turn.warnings).toBeUndefined()
    await run(
      adapter.stream({
        turns: [
          question,
          turn,
          {
            role: 'tool',
            results: [{ callId: 'toolu_01Weather', name: 'get_weather', output: '18 °C' }],
          },
        ],
      }),
    )
    const messages = sentBody(replay, 1)['messages'] as { content: unknown }[]
    expect(JSON.stringify(messages[1]!.content)).toBe(JSON.stringify(turn.items!.data))
  })
})
