import { describe, expect, it } from 'vitest'
import type { CallOptions } from '../../../src/core/adapter.ts'
import type { AssistantTurn, Conversation } from '../../../src/core/conversation.ts'
import { doneTurn, run } from '../../helpers/stream.ts'
import {
  fixture,
  inputOf,
  replayOnce,
  responseOf,
  responseStream,
  sentBody,
  setup,
} from './harness.ts'

const PATCH = '*** Begin Patch\n*** Update File: café.md\n@@\n-old ☕\n+new 🍵\n*** End Patch'
const applyPatch = {
  type: 'custom',
  name: 'apply_patch',
  description: 'Applies a patch to the workspace',
  format: { type: 'grammar', syntax: 'lark', definition: 'start: /(.|\\n)+/' },
}
const options: CallOptions = {
  tools: [{ name: 'get_weather', parameters: { type: 'object' } }],
  providerOptions: { openai: { tools: [applyPatch] } },
}
const ask: Conversation = { turns: [{ role: 'user', content: 'Fix café.md, then Lyon weather.' }] }

describe('openai: custom (freeform) tools', () => {
  it('sends custom tools from providerOptions beside the function tools', async () => {
    const { adapter, replay } = setup([{ body: fixture('custom-tool-call.sse') }])
    await run(adapter.stream(ask, options))
    expect(sentBody(replay)['tools']).toEqual([
      {
        type: 'function',
        name: 'get_weather',
        description: null,
        parameters: { type: 'object' },
        strict: false,
      },
      applyPatch,
    ])
  })

  it('streams a custom tool call as a tool-call whose input is the raw text, beside a function call', async () => {
    const { events, error } = await replayOnce(fixture('custom-tool-call.sse'), undefined, options)
    expect(error).toBeUndefined()
    const calls = [
      { id: 'call_Patch1', name: 'apply_patch', input: PATCH },
      { id: 'call_Lyon2', name: 'get_weather', input: { city: 'Lyon' } },
    ]
    expect(events.slice(0, -1)).toEqual([
      { type: 'thinking', text: 'Patch the file, then check Lyon.' },
      ...calls.map((call) => ({ type: 'tool-call', call })),
    ])
    const turn = doneTurn(events)
    expect(turn).toMatchObject({ stopReason: 'tool-calls', toolCalls: calls })
    expect(turn.items?.data[1]).toEqual({
      id: 'ctc_custom1',
      type: 'custom_tool_call',
      status: 'completed',
      call_id: 'call_Patch1',
      input: PATCH,
      name: 'apply_patch',
    })
  })

  it('answers each call in its own kind on the next request: custom_tool_call_output, function_call_output', async () => {
    const { adapter, replay } = setup([
      { body: fixture('custom-tool-call.sse') },
      { body: fixture('reasoning-then-text.sse') },
    ])
    const turn = doneTurn((await run(adapter.stream(ask, options))).events)
    const results = [
      { callId: 'call_Patch1', name: 'apply_patch', output: 'Done: 1 file changed' },
      { callId: 'call_Lyon2', name: 'get_weather', output: { celsius: 24 } },
    ]
    await run(adapter.stream({ turns: [...ask.turns, turn, { role: 'tool', results }] }, options))
    expect(inputOf(sentBody(replay))).toEqual([
      ask.turns[0],
      ...turn.items!.data,
      { type: 'custom_tool_call_output', call_id: 'call_Patch1', output: 'Done: 1 file changed' },
      { type: 'function_call_output', call_id: 'call_Lyon2', output: '{"celsius":24}' },
    ])
  })

  it('re-encodes a custom call made by another model as a custom_tool_call, answered in kind', async () => {
    const foreign: AssistantTurn = {
      role: 'assistant',
      text: '',
      toolCalls: [
        { id: 'call_P', name: 'apply_patch', input: PATCH },
        { id: 'call_W', name: 'get_weather', input: { city: 'Lyon' } },
      ],
      usage: { inputTokens: 1, outputTokens: 1 },
      stopReason: 'tool-calls',
      items: { provider: 'openai', model: 'gpt-5-mini', thinkingMode: 'default', data: [] },
    }
    const { adapter, replay } = setup([{ body: fixture('reasoning-then-text.sse') }])
    const results = [
      { callId: 'call_P', name: 'apply_patch', output: 'conflict', isError: true },
      { callId: 'call_W', name: 'get_weather', output: 'sunny' },
    ]
    await run(adapter.stream({ turns: [...ask.turns, foreign, { role: 'tool', results }] }))
    expect(inputOf(sentBody(replay)).slice(1)).toEqual([
      { type: 'custom_tool_call', call_id: 'call_P', name: 'apply_patch', input: PATCH },
      {
        type: 'function_call',
        call_id: 'call_W',
        name: 'get_weather',
        arguments: '{"city":"Lyon"}',
      },
      { type: 'custom_tool_call_output', call_id: 'call_P', output: 'Error: conflict' },
      { type: 'function_call_output', call_id: 'call_W', output: 'sunny' },
    ])
  })

  it('never yields nor keeps a custom call cut off by the output limit', async () => {
    const item = {
      id: 'ctc_cut',
      type: 'custom_tool_call',
      call_id: 'call_cut',
      name: 'apply_patch',
      input: '*** Begin Patch\n*** Upd',
    }
    const body = responseStream([
      { type: 'response.created', response: responseOf('in_progress', []) },
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { ...item, status: 'in_progress', input: '' },
      },
      {
        type: 'response.custom_tool_call_input.delta',
        item_id: 'ctc_cut',
        output_index: 0,
        delta: item.input,
      },
      {
        type: 'response.incomplete',
        response: responseOf('incomplete', [{ ...item, status: 'incomplete' }], {
          incomplete_details: { reason: 'max_output_tokens' },
        }),
      },
    ])
    const { events } = await replayOnce(body, undefined, options)
    expect(events).toHaveLength(1)
    expect(doneTurn(events)).toMatchObject({
      stopReason: 'length',
      items: { data: [] },
      warnings: [
        'tool call call_cut (apply_patch) dropped: it was cut off by the output limit (max_output_tokens)',
      ],
    })
  })
})
