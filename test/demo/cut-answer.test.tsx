// @vitest-environment happy-dom
import { cleanup, render, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { AssistantTurn, StopReason, Turn } from '../../src/core/conversation.ts'
import type { ChatMessage } from '../../src/react/index.ts'
import { App } from '../../demo/src/app.tsx'
import { cutAnswer } from '../../demo/src/cut-answer.ts'
import { MessageView } from '../../demo/src/message-view.tsx'

// An answer a restart of the relay cut (the conversation stream's `interrupted`) is marked on the
// page: what arrived of it was kept, or it was asked again.

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
  localStorage.clear()
  history.replaceState(null, '', '/')
})

const ID = 'c-0123456789abcdef0123'
const QUESTION: Turn = { role: 'user', content: 'Tell me a story' }
const turnOf = (text: string, stopReason: StopReason = 'stop'): AssistantTurn => ({
  role: 'assistant',
  text,
  usage: { inputTokens: 3, outputTokens: 3 },
  stopReason,
})
const message = (id: string, role: 'user' | 'assistant', text: string): ChatMessage => ({
  id,
  role,
  text,
  thinking: '',
  toolCalls: [],
  status: 'done',
})
const frame = (id: number, event: string, data: unknown) =>
  `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`

describe('the answer a restart cut', () => {
  it('is the last message once it is an answer, kept or asked again', () => {
    const asked = message('m0', 'user', 'Tell me a story')
    const answer = message('m1', 'assistant', 'Once')
    expect(cutAnswer([asked, answer], 'kept')).toEqual({
      id: 'm1',
      note: 'Interrupted — kept what arrived',
    })
    expect(cutAnswer([asked, answer], 'retried')).toEqual({
      id: 'm1',
      note: 'Interrupted — retried',
    })
    // Asked again, and nothing of the new answer arrived yet: no answer to mark.
    expect(cutAnswer([asked], 'retried')).toBeUndefined()
    expect(cutAnswer([asked, answer], undefined)).toBeUndefined()
  })

  it('says so under the answer, and names it interrupted to a screen reader', () => {
    const answer = { ...message('m1', 'assistant', 'Once upon'), status: 'stopped' as const }
    render(
      <MessageView
        message={answer}
        stats={undefined}
        interrupted="Interrupted — kept what arrived"
      />,
    )
    const article = screen.getByRole('article')
    expect(within(article).getByRole('heading').textContent).toBe('The model said (interrupted)')
    expect(within(article).getByTestId('cut-note').textContent).toBe(
      'Interrupted — kept what arrived',
    )
    cleanup()
    render(<MessageView message={answer} stats={undefined} />)
    expect(screen.queryByTestId('cut-note')).toBeNull()
    expect(screen.getByRole('heading').textContent).toBe('The model said (stopped)')
  })
})

/**
 * A relay for the demo page, holding one conversation whose answer is in flight: `GET` says so, and
 * its follow stream is written by the test.
 */
function pageRelay() {
  let write!: ReadableStreamDefaultController<string>
  const stream = new ReadableStream<string>({ start: (controller) => void (write = controller) })
  const fetch = async (input: RequestInfo | URL) => {
    const url = new URL(String(input), location.href)
    if (url.pathname === '/v1/models') return Response.json({ models: [{ id: 'mock/echo' }] })
    if (url.pathname === '/v1/conversations') return Response.json({ conversations: [] })
    if (url.pathname === `/v1/conversations/${ID}`) {
      return Response.json({
        id: ID,
        conversation: { turns: [QUESTION] },
        streaming: true,
        lastEventId: 1,
      })
    }
    if (url.pathname === `/v1/conversations/${ID}/stream`) {
      return new Response(stream.pipeThrough(new TextEncoderStream()), {
        headers: { 'content-type': 'text/event-stream' },
      })
    }
    return Response.json(
      { error: { kind: 'invalid-request', message: 'no such route' } },
      { status: 404 },
    )
  }
  return { fetch, write: (text: string) => write.enqueue(text) }
}

/** The demo page on the conversation of `relay`, which it follows over SSE. */
function openPage(relay: ReturnType<typeof pageRelay>) {
  history.replaceState(null, '', `/?c=${ID}`)
  vi.stubGlobal('fetch', relay.fetch)
  vi.stubGlobal('WebSocket', undefined)
  render(<App />)
}

const answers = () => screen.queryAllByTestId('answer').map((answer) => answer.textContent.trim())
const cutNotes = () => screen.queryAllByTestId('cut-note')

describe('the demo page, on an answer a restart of the relay cut', () => {
  it('marks the answer kept as it stood, until the next answer starts', async () => {
    const relay = pageRelay()
    openPage(relay)
    relay.write(frame(1, 'turn', { turn: QUESTION }) + frame(2, 'text', { text: 'Once upon' }))
    await waitFor(() => expect(answers()).toEqual(['Once upon']))
    expect(cutNotes()).toEqual([])
    relay.write(frame(3, 'interrupted', { retried: false }))
    relay.write(frame(4, 'done', { turn: turnOf('Once upon', 'aborted') }))
    await waitFor(() => expect(cutNotes()).toHaveLength(1))
    const [note] = cutNotes()
    expect(note!.textContent).toBe('Interrupted — kept what arrived')
    // Under the answer it marks, which says so to a screen reader too.
    const article = note!.closest('article')!
    expect(within(article).getByTestId('answer').textContent.trim()).toBe('Once upon')
    expect(within(article).getByRole('heading').textContent).toBe('The model said (interrupted)')
    // Another tab asks again: the next answer is not marked, nor is this one any more.
    relay.write(frame(5, 'turn', { turn: { role: 'user', content: 'And then?' } }))
    relay.write(frame(6, 'text', { text: 'The end.' }))
    await waitFor(() => expect(answers()).toEqual(['Once upon', 'The end.']))
    expect(cutNotes()).toEqual([])
  })

  it('marks the answer asked again once it arrives, in place of what arrived before', async () => {
    const relay = pageRelay()
    openPage(relay)
    relay.write(frame(1, 'turn', { turn: QUESTION }) + frame(2, 'text', { text: 'Once' }))
    await waitFor(() => expect(answers()).toEqual(['Once']))
    relay.write(frame(3, 'interrupted', { retried: true }))
    await waitFor(() => expect(answers()).toEqual([]))
    expect(cutNotes()).toEqual([])
    relay.write(frame(4, 'text', { text: 'Long ago' }))
    await waitFor(() => expect(answers()).toEqual(['Long ago']))
    expect(cutNotes().map((note) => note.textContent)).toEqual(['Interrupted — retried'])
    relay.write(frame(5, 'done', { turn: turnOf('Long ago.') }))
    await waitFor(() => expect(answers()).toEqual(['Long ago.']))
    expect(cutNotes().map((note) => note.textContent)).toEqual(['Interrupted — retried'])
  })
})
