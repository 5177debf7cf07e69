// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react'
import { createRef } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Composer } from '../../demo/src/composer.tsx'
import { MessageView } from '../../demo/src/message-view.tsx'
import { PreviousChats } from '../../demo/src/previous-chats.tsx'
import type { ChatMessage } from '../../src/react/index.ts'

// The parts of the demo that a durable conversation's versions, queue and titles add: the pager
// under a message with versions, a question edited in place, the composer queueing while an
// answer runs, and a previous chat renamed. Each is for a keyboard and a screen reader too.

afterEach(cleanup)

const question = (branch?: ChatMessage['branch']): ChatMessage => ({
  id: 'm0',
  role: 'user',
  text: 'What is a branch?',
  thinking: '',
  toolCalls: [],
  status: 'done',
  branch,
})

const answer: ChatMessage = {
  id: 'm1',
  role: 'assistant',
  text: 'A version.',
  thinking: '',
  toolCalls: [],
  status: 'done',
  turn: {
    role: 'assistant',
    text: 'A version.',
    usage: { inputTokens: 1, outputTokens: 1 },
    stopReason: 'stop',
  },
  branch: { index: 1, count: 3 },
}

describe('the pager of a message with versions', () => {
  it('says which version it shows, and shows the one before or after', () => {
    const select = vi.fn()
    render(<MessageView message={answer} stats={undefined} versions={{ busy: false, select }} />)
    const pager = screen.getByRole('group', { name: 'Versions of this answer' })
    expect(pager.textContent).toContain('2 / 3')
    expect(screen.getByText('Version 2 of 3')).toBeDefined()
    fireEvent.click(screen.getByRole('button', { name: 'Previous version' }))
    fireEvent.click(screen.getByRole('button', { name: 'Next version' }))
    expect(select.mock.calls).toEqual([[0], [2]])
  })

  it('does nothing past either end, nor while an answer runs, and says so', () => {
    const select = vi.fn()
    const first = { ...answer, branch: { index: 0, count: 2 } }
    const { rerender } = render(
      <MessageView message={first} stats={undefined} versions={{ busy: false, select }} />,
    )
    const previous = screen.getByRole('button', { name: 'Previous version' })
    expect(previous.getAttribute('aria-disabled')).toBe('true')
    fireEvent.click(previous)
    rerender(<MessageView message={first} stats={undefined} versions={{ busy: true, select }} />)
    const next = screen.getByRole('button', { name: 'Next version' })
    expect(next.getAttribute('aria-disabled')).toBe('true')
    fireEvent.click(next)
    expect(select).not.toHaveBeenCalled()
  })

  it('shows none under a message without versions, or in a page that offers none', () => {
    render(
      <MessageView
        message={question()}
        stats={undefined}
        versions={{ busy: false, select() {} }}
      />,
    )
    render(<MessageView message={answer} stats={undefined} />)
    expect(screen.queryByRole('group')).toBeNull()
  })
})

describe('a question edited in place', () => {
  it('opens an editor that takes the focus; Escape restores the question and focuses Edit', () => {
    const onEdit = vi.fn()
    const escapes = vi.fn()
    window.addEventListener('keydown', escapes)
    render(
      <MessageView
        message={question({ index: 0, count: 2 })}
        stats={undefined}
        onEdit={onEdit}
        versions={{ busy: false, select() {} }}
      />,
    )
    expect(screen.getByRole('group', { name: 'Versions of this question' })).toBeDefined()
    fireEvent.click(screen.getByRole('button', { name: 'Edit this message' }))
    const box = screen.getByLabelText<HTMLTextAreaElement>('Edit your message')
    expect(document.activeElement).toBe(box)
    expect(box.value).toBe('What is a branch?')
    fireEvent.change(box, { target: { value: 'Never mind' } })
    fireEvent.keyDown(box, { key: 'Escape' })
    expect(screen.queryByLabelText('Edit your message')).toBeNull()
    expect(screen.getByText('What is a branch?').className).toBe('bubble')
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Edit this message' }))
    expect(onEdit).not.toHaveBeenCalled()
    // The editor's own Escape: the page's (which stops an answer) did not hear it.
    expect(escapes).not.toHaveBeenCalled()
    window.removeEventListener('keydown', escapes)
  })

  it('sends the new text on Save and on Enter, and never an empty one', () => {
    const onEdit = vi.fn()
    render(<MessageView message={question()} stats={undefined} onEdit={onEdit} />)
    fireEvent.click(screen.getByRole('button', { name: 'Edit this message' }))
    const box = screen.getByLabelText('Edit your message')
    fireEvent.change(box, { target: { value: '   ' } })
    expect(screen.getByRole('button', { name: 'Save' }).hasAttribute('disabled')).toBe(true)
    fireEvent.keyDown(box, { key: 'Enter' })
    fireEvent.change(box, { target: { value: ' What is a version? ' } })
    fireEvent.click(screen.getByRole('button', { name: 'Save' }))
    expect(onEdit.mock.calls).toEqual([['What is a version?']])
    expect(screen.queryByLabelText('Edit your message')).toBeNull()

    fireEvent.click(screen.getByRole('button', { name: 'Edit this message' }))
    fireEvent.keyDown(screen.getByLabelText('Edit your message'), { key: 'Enter' })
    expect(onEdit.mock.calls).toEqual([['What is a version?'], ['What is a branch?']])
  })

  it('closes the editor when an answer starts meanwhile (another tab’s), for good', () => {
    const onEdit = vi.fn()
    const { rerender } = render(
      <MessageView message={question()} stats={undefined} onEdit={onEdit} />,
    )
    fireEvent.click(screen.getByRole('button', { name: 'Edit this message' }))
    rerender(<MessageView message={question()} stats={undefined} />)
    expect(screen.queryByLabelText('Edit your message')).toBeNull()
    rerender(<MessageView message={question()} stats={undefined} onEdit={onEdit} />)
    expect(screen.queryByLabelText('Edit your message')).toBeNull()
    expect(screen.getByText('What is a branch?').className).toBe('bubble')
  })

  it('offers no Edit when the page does not (an answer runs, or the stateless mode)', () => {
    render(<MessageView message={question()} stats={undefined} />)
    expect(screen.queryByRole('button', { name: 'Edit this message' })).toBeNull()
  })
})

describe('the composer while an answer runs', () => {
  const composer = (canQueue: boolean, onSend: (text: string) => void) => (
    <Composer
      input={createRef()}
      text="Later, please"
      onText={() => {}}
      busy
      canQueue={canQueue}
      canRegenerate={false}
      onSend={onSend}
      onStop={() => {}}
      onRegenerate={() => {}}
    />
  )

  it('queues a message on Enter and with Queue, beside Stop, when the page can', () => {
    const onSend = vi.fn()
    render(composer(true, onSend))
    fireEvent.keyDown(screen.getByLabelText('Message'), { key: 'Enter' })
    fireEvent.click(screen.getByRole('button', { name: 'Queue' }))
    expect(onSend.mock.calls).toEqual([['Later, please'], ['Later, please']])
    expect(screen.getByRole('button', { name: 'Stop' })).toBeDefined()
  })

  it('sends nothing while an answer runs when the page cannot queue', () => {
    const onSend = vi.fn()
    render(composer(false, onSend))
    fireEvent.keyDown(screen.getByLabelText('Message'), { key: 'Enter' })
    expect(screen.queryByRole('button', { name: 'Queue' })).toBeNull()
    expect(onSend).not.toHaveBeenCalled()
  })
})

describe('a previous chat renamed', () => {
  const chats = [{ id: 'c1', title: 'First question', updatedAt: undefined }]

  it('renames it with Enter, and gives the focus back to Rename', async () => {
    const onRename = vi.fn(async () => {})
    render(<PreviousChats chats={chats} onOpen={() => {}} onRename={onRename} />)
    fireEvent.click(screen.getByRole('button', { name: 'Rename “First question”' }))
    const input = screen.getByLabelText<HTMLInputElement>('New title for “First question”')
    expect(document.activeElement).toBe(input)
    fireEvent.change(input, { target: { value: 'Jokes' } })
    await act(async () => void fireEvent.submit(input))
    expect(onRename).toHaveBeenCalledWith('c1', 'Jokes')
    expect(document.activeElement).toBe(
      screen.getByRole('button', { name: 'Rename “First question”' }),
    )
  })

  it('says why the relay refused a title, and Escape keeps the old one', async () => {
    const onRename = vi.fn(async () => {
      throw new Error('title must not be empty')
    })
    render(<PreviousChats chats={chats} onOpen={() => {}} onRename={onRename} />)
    fireEvent.click(screen.getByRole('button', { name: 'Rename “First question”' }))
    const input = screen.getByLabelText('New title for “First question”')
    await act(async () => void fireEvent.submit(input))
    expect(screen.getByRole('alert').textContent).toBe('title must not be empty')
    expect(input.getAttribute('aria-describedby')).toBe(screen.getByRole('alert').id)
    fireEvent.keyDown(input, { key: 'Escape' })
    expect(screen.getByTestId('previous-chat').textContent).toContain('First question')
    expect(document.activeElement).toBe(
      screen.getByRole('button', { name: 'Rename “First question”' }),
    )
  })

  it('offers no Rename where the chats are kept in the page', () => {
    render(<PreviousChats chats={chats} onOpen={() => {}} />)
    expect(screen.queryByRole('button', { name: /Rename/ })).toBeNull()
  })
})
