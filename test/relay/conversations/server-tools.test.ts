import { describe, expect, it } from 'vitest'
import {
  needsApproval,
  runServerTool,
  serverToolSpecs,
  type ServerTool,
} from '../../../src/relay/conversations/server-tools.ts'
import { serverTools } from '../../../worker/tools.ts'

const call = (name: string, input: unknown) => ({ id: 'call_0', name, input })
const context = () => ({ signal: new AbortController().signal, conversationId: 'c' })
const tool = (execute: ServerTool['execute'], rule?: ServerTool['needsApproval']): ServerTool => ({
  parameters: { type: 'object' },
  execute,
  needsApproval: rule,
})

describe('server tools', () => {
  it('offer the named ones to the model, as specs', () => {
    expect(serverToolSpecs(serverTools, ['save_note'])).toEqual([
      {
        name: 'save_note',
        description: serverTools['save_note']!.description,
        parameters: serverTools['save_note']!.parameters,
      },
    ])
    // Never a member the table only inherits.
    expect(serverToolSpecs(serverTools, ['toString'])).toEqual([])
  })

  it('ask for an approval as their rule says, and when a rule cannot say', () => {
    expect(
      needsApproval(
        tool(() => 1),
        undefined,
      ),
    ).toBe(false)
    expect(
      needsApproval(
        tool(() => 1, true),
        {},
      ),
    ).toBe(true)
    const big = tool(
      () => 1,
      (input) => (input as { amount: number }).amount > 100,
    )
    expect(needsApproval(big, { amount: 5 })).toBe(false)
    expect(needsApproval(big, { amount: 500 })).toBe(true)
    expect(needsApproval(big, null)).toBe(true)
  })

  it('answer with the output as JSON, or the failure as an error result without a key', async () => {
    expect(
      await runServerTool(
        tool(() => ({ n: 1 })),
        call('t', {}),
        context(),
      ),
    ).toEqual({
      callId: 'call_0',
      name: 't',
      output: { n: 1 },
    })
    expect(
      await runServerTool(
        tool(() => undefined),
        call('t', {}),
        context(),
      ),
    ).toMatchObject({
      output: null,
    })
    const unsendable = await runServerTool(
      tool(() => 10n),
      call('t', {}),
      context(),
    )
    expect(unsendable).toMatchObject({ isError: true })
    expect(String(unsendable.output)).toMatch(/cannot be sent/)
    const thrown = tool(() => {
      throw new Error('fetch https://api.example.com/v1?key=AIzaSyA1234567890abcdefghij failed')
    })
    const failed = await runServerTool(thrown, call('t', {}), context())
    expect(failed).toMatchObject({ isError: true })
    expect(String(failed.output)).not.toMatch(/AIza|key=/)
  })

  it('ship clock (now, as ISO 8601) and save_note (approved, "saved: <text>")', async () => {
    const { clock, save_note: note } = serverTools
    const before = Date.now()
    const now = await runServerTool(clock!, call('clock', {}), context())
    expect(Date.parse(String(now.output))).toBeGreaterThanOrEqual(before - 1)
    expect(now.output).toBe(new Date(Date.parse(String(now.output))).toISOString())
    expect(needsApproval(clock!, {})).toBe(false)
    expect(needsApproval(note!, { text: 'x' })).toBe(true)
    const saved = await runServerTool(note!, call('save_note', { text: 'milk' }), context())
    expect(saved.output).toBe('saved: milk')
    const empty = await runServerTool(note!, call('save_note', {}), context())
    expect(empty).toMatchObject({ isError: true })
    expect(String(empty.output)).toMatch(/save_note needs \{ "text": string \}/)
  })
})
