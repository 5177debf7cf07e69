// @vitest-environment happy-dom
/**
 * `useChat` and `Chat` as real React apps use them: StrictMode, callbacks that change from render
 * to render, tools that return what JSON cannot hold or ignore their signal, ids that must match
 * between a server render and the browser.
 */
import { act, cleanup, render, renderHook } from '@testing-library/react'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { Activity, StrictMode, useEffect } from 'react'
import { renderToString } from 'react-dom/server'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Chat } from '../../src/core/chat.ts'
import type { AssistantTurn, ToolTurn } from '../../src/core/conversation.ts'
import { mock } from '../../src/providers/mock/index.ts'
import { useChat, type UseChatOptions } from '../../src/react/index.ts'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0))
const now = (flush: () => void) => flush()

/** A mock that asks for `lookup` once, then answers in text. */
function toolUser() {
  return mock({
    script: [
      { toolCalls: [{ id: 'call_1', name: 'lookup', input: { q: 'x' } }] },
      { text: 'Fertig.' },
    ],
  })
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream);
}

describe('useChat in StrictMode', () => {
  it('keeps a send started in a mount effect through the development remount', async () => {
    const upstream = mock({ script: [{ text: 'Hallo' }] })
    const seen: string[][] = []
    function App() {
      const { messages, send } = useChat({ adapter: upstream, scheduler: now })
      useEffect(() => {
        void send('Hi')
      }, [send])
      seen.push(messages.map((m) => m.text))
      return null
    }
    render(
      <StrictMode>
        <App />
      </StrictMode>,
    )
    await act(async () => {
      await tick()
      await tick()
    })
    // StrictMode ran the effect twice: the second send was refused while the first ran.
    expect(upstream.calls).toHaveLength(1)
    expect(upstream.calls[0]?.signal.aborted).toBe(false)
    expect(seen.at(-1)).toEqual(['Hi', 'Hallo'])
  })
})

/** Runs full garbage collections until `done()` holds (finalizers run in later tasks). */
async function collectUntil(done: () => boolean): Promise<boolean> {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  for (let round = 0; round < 50 && !done(); round++) {
    gc()
    await act(async () => {
      await new Promise<void>((resolve) => setTimeout(resolve, 10))
    })
  }
  return done()
}

describe('useChat hidden and unmounted', () => {
  /** A chat that sends in a mount effect, on a mock that stalls mid-answer until released. */
  function stalled() {
    const upstream = mock({ chunkSize: 1, script: [{ text: 'abc', stallAfterEvents: 1 }] })
    const seen: string[][] = []
    function App() {
      const { messages, send } = useChat({ adapter: upstream, scheduler: now })
      useEffect(() => {
        void send('Hi')
      }, [send])
      seen.push(messages.map((m) => m.text))
      return null
    }
    return { upstream, seen, App }
  }

  it('goes on answering while hidden in <Activity mode="hidden">, and shows it when visible', async () => {
    const upstream = mock({ script: [{ text: 'Hallo Welt' }], delayMs: 5 })
    const seen: string[][] = []
    let ask!: (text: string) => Promise<void>
    function App() {
      const { messages, send } = useChat({ adapter: upstream, scheduler: now })
      ask = send
      seen.push(messages.map((m) => m.text))
      return null
    }
    const view = render(
      <Activity mode="visible">
        <App />
      </Activity>,
    )
    let answered!: Promise<void>
    act(() => {
      answered = ask('Hi')
    })
    view.rerender(
      <Activity mode="hidden">
        <App />
      </Activity>,
    )
    // Hidden: React ran the effects' cleanups. The answer must go on to its end regardless.
    await collectUntil(() => upstream.calls[0]?.signal.aborted === true)
    expect(upstream.calls).toHaveLength(1)
    expect(upstream.calls[0]?.signal.aborted).toBe(false)
    view.rerender(
      <Activity mode="visible">
        <App />
      </Activity>,
    )
    await act(async () => {
      await answered
      await tick()
    })
    expect(seen.at(-1)).toEqual(['Hi', 'Hallo Welt'])
    expect(upstream.calls[0]?.signal.aborted).toBe(false)
  })

  it('stops the answer of a chat unmounted for good, once it is collected', async () => {
    const { upstream, App } = stalled()
    const view = render(<App />)
    await act(async () => {
      await tick()
    })
    expect(upstream.calls).toHaveLength(1)
    view.unmount()
    expect(await collectUntil(() => upstream.calls[0]?.signal.aborted === true)).toBe(true)
  })

  it('keeps a hidden chat that stalls mid-answer running through garbage collections', async () => {
    const { upstream, seen, App } = stalled()
    const view = render(
      <Activity mode="visible">
        <App />
      </Activity>,
    )
    await act(async () => {
      await tick()
    })
    view.rerender(
      <Activity mode="hidden">
        <App />
      </Activity>,
    )
    await collectUntil(() => upstream.calls[0]?.signal.aborted === true)
    expect(upstream.calls[0]?.signal.aborted).toBe(false)
    expect(seen.at(-1)).toEqual(['Hi', 'a'])
  })
})

describe('useChat options from render to render', () => {
  it('gives later steps of a tool loop the onToolCall of the latest render', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const upstream = mock({
      script: [
        { toolCalls: [{ id: 'c1', name: 'state', input: {} }] },
        { toolCalls: [{ id: 'c2', name: 'state', input: {} }] },
        { text: 'ok' },
      ],
    })
    const answers: string[] = []
    const { result, rerender } = renderHook((props: UseChatOptions) => useChat(props), {
      initialProps: {
        adapter: upstream,
        scheduler: now,
        onToolCall: async () => {
          answers.push('old')
          await gate
          return 'old'
        },
      } as UseChatOptions,
    })
    let done!: Promise<void>
    await act(async () => {
      done = result.current.send('go')
      await tick()
    })
    rerender({ adapter: upstream, scheduler: now, onToolCall: () => (answers.push('new'), 'new') })
    release()
    await act(async () => {
      await done
    })
    expect(answers).toEqual(['old', 'new'])
  })

  it('clears an option a later render leaves out', async () => {
    const upstream = toolUser()
    const { result, rerender } = renderHook((props: UseChatOptions) => useChat(props), {
      initialProps: {
        adapter: upstream,
        scheduler: now,
        onToolCall: () => 'ran',
      } as UseChatOptions,
    })
    rerender({ adapter: upstream, scheduler: now })
    await act(async () => {
      await result.current.send('go')
    })
    // Without onToolCall the call is not answered by the client: one model call, no tool turn.
    expect(upstream.calls).toHaveLength(1)
    expect(result.current.conversation.turns.map((t) => t.role)).toEqual(['user', 'assistant'])
  })
})

describe('Chat tools and stops', () => {
  it.each([
    ['nothing (a void tool)', undefined, { output: null }],
    [
      'a function',
      () => 1,
      { isError: true, output: "The tool's result cannot be sent: a function is not JSON" },
    ],
    [
      'a BigInt',
      { n: 10n },
      {
        isError: true,
        output: expect.stringMatching(/^The tool's result cannot be sent: .*BigInt/),
      },
    ],
  ])('commits a tool that returned %s as JSON the relay takes', async (_, value, expected) => {
    const chat = new Chat({ adapter: toolUser(), onToolCall: () => value })
    await drain(chat.send('go'))
    const results = chat.conversation.turns[2] as ToolTurn
    expect(results.results[0]).toMatchObject(expected)
    expect(() => JSON.stringify(chat.conversation)).not.toThrow()
    expect(chat.status).toBe('ready')
  })

  it('commits a cyclic result as an error result and a plain object as a copy', async () => {
    const cyclic: { self?: unknown } = {}
    cyclic.self = cyclic
    const kept = { n: 1 }
    const first = new Chat({ adapter: toolUser(), onToolCall: () => cyclic })
    await drain(first.send('go'))
    expect((first.conversation.turns[2] as ToolTurn).results[0]).toMatchObject({ isError: true })
    const second = new Chat({ adapter: toolUser(), onToolCall: () => kept })
    await drain(second.send('go'))
    kept.n = 2
    expect((second.conversation.turns[2] as ToolTurn).results[0]?.output).toEqual({ n: 1 })
  })

  it('is ready at once when stopped while a tool ignores its signal, and drops what it returns later', async () => {
    let finish!: (value: string) => void
    const chat = new Chat({
      adapter: toolUser(),
      onToolCall: () => new Promise<string>((resolve) => (finish = resolve)),
    })
    const sending = drain(chat.send('go'))
    await vi.waitFor(() => expect(finish).toBeTypeOf('function'))
    chat.stop()
    expect(chat.status).toBe('ready')
    await sending
    const turns = chat.conversation.turns
    expect(turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool'])
    expect((turns[2] as ToolTurn).results[0]).toMatchObject({
      isError: true,
      output: 'Stopped before the tool finished.',
    })
    finish('late')
    await tick()
    expect(chat.conversation.turns).toBe(turns)
  })

  it('waits as submitted, not streaming, while a tool runs between steps', async () => {
    let finish!: (value: string) => void
    const chat = new Chat({
      adapter: toolUser(),
      onToolCall: () => new Promise<string>((resolve) => (finish = resolve)),
    })
    const sending = drain(chat.send('go'))
    await vi.waitFor(() => expect(finish).toBeTypeOf('function'))
    expect(chat.status).toBe('submitted')
    expect(chat.getSnapshot().messages.every((m) => m.status !== 'streaming')).toBe(true)
    finish('x')
    await sending
    expect(chat.status).toBe('ready')
  })

  it('calls no model for a send whose signal was aborted before it started', async () => {
    const upstream = mock()
    const chat = new Chat({ adapter: upstream })
    await drain(chat.send('Hi', { signal: AbortSignal.abort() }))
    expect(upstream.calls).toHaveLength(0)
    expect(chat.conversation.turns).toEqual([])
    expect(chat.status).toBe('ready')
  })
})

describe('Chat after failures', () => {
  it('retries only the failed step of a tool loop: no tool runs twice', async () => {
    let runs = 0
    const upstream = mock({
      script: [
        { toolCalls: [{ id: 'c1', name: 'charge', input: { cents: 500 } }] },
        { fail: { kind: 'server' } },
        { text: 'Bezahlt.' },
      ],
    })
    const chat = new Chat({ adapter: upstream, onToolCall: () => (runs++, 'charged') })
    await expect(drain(chat.send('pay'))).rejects.toMatchObject({ kind: 'server' })
    await drain(chat.regenerate())
    expect(runs).toBe(1)
    expect(upstream.calls).toHaveLength(3)
    expect(chat.conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect((chat.conversation.turns[3] as AssistantTurn).text).toBe('Bezahlt.')
  })

  it('keeps a failed question through retries that fail too, and answers it when one succeeds', async () => {
    const upstream = mock({
      script: [{ fail: { kind: 'server' } }, { fail: { kind: 'server' } }, { text: 'Endlich.' }],
    })
    const chat = new Chat({ adapter: upstream })
    await expect(drain(chat.send('Frage'))).rejects.toMatchObject({ kind: 'server' })
    await expect(drain(chat.regenerate())).rejects.toMatchObject({ kind: 'server' })
    expect(chat.getSnapshot().messages.map((m) => m.text)).toEqual(['Frage'])
    await drain(chat.regenerate())
    expect(chat.conversation.turns.map((t) => (t.role === 'user' ? t.content : t.role))).toEqual([
      'Frage',
      'assistant',
    ])
    expect(upstream.calls.map((c) => c.conversation.turns.length)).toEqual([1, 1, 1])
  })

  it('keeps the old answer on screen when a regenerate fails', async () => {
    const upstream = mock({
      script: [{ text: 'Erste Antwort' }, { fail: { kind: 'server' } }, { text: 'Zweite' }],
    })
    const chat = new Chat({ adapter: upstream })
    await drain(chat.send('Hi'))
    await expect(drain(chat.regenerate())).rejects.toMatchObject({ kind: 'server' })
    expect(chat.status).toBe('error')
    expect(chat.getSnapshot().messages.map((m) => m.text)).toEqual(['Hi', 'Erste Antwort'])
    await drain(chat.regenerate())
    expect(chat.getSnapshot().messages.map((m) => m.text)).toEqual(['Hi', 'Zweite'])
  })

  it('reports an onFinish that throws instead of swallowing it', async () => {
    const reported: unknown[] = []
    vi.stubGlobal('reportError', (error: unknown) => reported.push(error))
    const chat = new Chat({
      adapter: mock({ script: [{ text: 'ok' }] }),
      onFinish: () => {
        throw new Error('app bug')
      },
    })
    await drain(chat.send('Hi'))
    expect(reported).toEqual([new Error('app bug')])
    expect(chat.status).toBe('ready')
  })
})

describe('message ids', () => {
  it('are the same on a server render and in the browser, and one per position', async () => {
    const turn = { role: 'user' as const, content: 'Hi' }
    const conversation = {
      turns: [
        turn,
        {
          role: 'assistant' as const,
          text: 'Yo',
          usage: { inputTokens: 0, outputTokens: 0 },
          stopReason: 'stop' as const,
        },
        turn,
      ],
    }
    function Ids() {
      const { messages } = useChat({ adapter: mock(), initialConversation: conversation })
      return <>{messages.map((m) => m.id).join(',')}</>
    }
    const server = renderToString(<Ids />)
    const browser = render(<Ids />)
    expect(browser.container.textContent).toBe(server.replaceAll('<!-- -->', ''))
    expect(server).toBe('m0,m1,m2')
  })

  it('keeps the id of a streaming answer once it is committed', async () => {
    const chat = new Chat({ adapter: mock({ chunkSize: 2, script: [{ text: 'Hallo Welt' }] }) })
    const ids = new Set<string>()
    chat.subscribe(() => {
      const last = chat.getSnapshot().messages.at(-1)
      if (last?.role === 'assistant') ids.add(last.id)
    })
    await drain(chat.send('Hi'))
    expect([...ids]).toEqual(['m1'])
  })
})
