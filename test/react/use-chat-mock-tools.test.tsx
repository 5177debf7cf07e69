// @vitest-environment happy-dom
import { act, cleanup, renderHook } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ToolSpec } from '../../src/core/adapter.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { useChat, type UseChatOptions } from '../../src/react/index.ts'

afterEach(cleanup)

/** Renders at once rather than once per frame. */
const now = (flush: () => void) => flush()

const tools: ToolSpec[] = [
  {
    name: 'clock',
    description: 'The current time',
    parameters: { type: 'object', properties: {} },
  },
  {
    name: 'save_note',
    description: 'Keeps a note',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    },
  },
]

describe('useChat on the unscripted mock', () => {
  it('runs a tool the message names end to end: the call, the result, and an answer quoting it', async () => {
    const onToolCall = vi.fn((call: { name: string; input: unknown }) =>
      call.name === 'clock' ? '2026-12-06T07:00:00Z' : 'unknown tool',
    )
    const adapter = mock()
    const { result } = renderHook((options: UseChatOptions) => useChat(options), {
      initialProps: { adapter, scheduler: now, tools, onToolCall },
    })
    await act(async () => {
      await result.current.send('What time is it? Ask the clock.')
    })
    expect(result.current.status).toBe('ready')
    expect(onToolCall).toHaveBeenCalledTimes(1)
    expect(onToolCall.mock.calls[0]?.[0]).toMatchObject({ name: 'clock', input: {} })
    expect(result.current.conversation.turns.map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    const [, calling, answer] = result.current.messages
    expect(calling?.thinking).toContain('The message names clock, so I call it.')
    expect(calling?.toolCalls[0]).toMatchObject({
      name: 'clock',
      result: { output: '2026-12-06T07:00:00Z' },
    })
    expect(answer?.text).toBe('The clock tool returned "2026-12-06T07:00:00Z".')
    expect(adapter.calls.map((call) => call.options.tools)).toEqual([tools, tools])
  })

  it('tells the user which tools to name when the message names none', async () => {
    const onToolCall = vi.fn()
    const { result } = renderHook((options: UseChatOptions) => useChat(options), {
      initialProps: { adapter: mock(), scheduler: now, tools, onToolCall },
    })
    await act(async () => {
      await result.current.send('Hello')
    })
    expect(onToolCall).not.toHaveBeenCalled()
    expect(result.current.messages.at(-1)?.text).toContain(
      'Mention a tool by name (clock, save_note) and I will call it.',
    )
  })
})
