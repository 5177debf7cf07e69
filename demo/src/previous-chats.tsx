import { useEffect, useRef, useState, type KeyboardEvent } from 'react'
import type { PreviousChat } from './demo-chat.ts'

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

type Props = {
  chats: readonly PreviousChat[]
  onOpen(id: string): void
  /** Renames a chat (durable mode); rejects with the relay's reason. */
  onRename?: ((id: string, title: string) => Promise<void>) | undefined
}

/**
 * Earlier chats (the relay's list, or localStorage's in stateless mode), each one click away. In
 * durable mode each has Rename: its title in a box that takes the focus, Save (or Enter) renames
 * it on the relay, Cancel (or Escape) keeps it, and the focus goes back to Rename.
 */
export function PreviousChats({ chats, onOpen, onRename }: Props) {
  if (chats.length === 0) return null
  return (
    <section className="previous-chats" aria-labelledby="previous-chats-title">
      <h3 id="previous-chats-title">Previous chats</h3>
      <ul>
        {chats.map((chat) => (
          <ChatLine key={chat.id} chat={chat} onOpen={onOpen} onRename={onRename} />
        ))}
      </ul>
    </section>
  )
}

function ChatLine({ chat, onOpen, onRename }: { chat: PreviousChat } & Omit<Props, 'chats'>) {
  const [renaming, setRenaming] = useState(false)
  const [title, setTitle] = useState(chat.title)
  const [failure, setFailure] = useState<string>()
  const input = useRef<HTMLInputElement>(null)
  const rename = useRef<HTMLButtonElement>(null)
  const wasRenaming = useRef(false)
  useEffect(() => {
    if (renaming) {
      input.current?.focus()
      input.current?.select()
    } else if (wasRenaming.current) rename.current?.focus()
    wasRenaming.current = renaming
  }, [renaming])
  const close = () => {
    setFailure(undefined)
    setRenaming(false)
  }
  const save = async () => {
    try {
      await onRename?.(chat.id, title)
      close()
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error))
    }
  }
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Escape') {
      // The form's own: not the page's Escape, which stops an answer.
      event.preventDefault()
      event.stopPropagation()
      close()
    }
  }
  if (renaming) {
    const failed = `rename-failed-${chat.id}`
    return (
      <li>
        <form
          className="rename"
          onSubmit={(event) => {
            event.preventDefault()
            void save()
          }}
        >
          <input
            ref={input}
            aria-label={`New title for “${chat.title}”`}
            aria-describedby={failure === undefined ? undefined : failed}
            data-testid="rename-input"
            value={title}
            maxLength={200}
            onChange={(event) => setTitle(event.target.value)}
            onKeyDown={onKeyDown}
          />
          <button type="submit" data-testid="save-rename" disabled={title.trim() === ''}>
            Save
          </button>
          <button type="button" className="secondary" onClick={close}>
            Cancel
          </button>
          {failure !== undefined && (
            <p id={failed} className="rename-failure" role="alert">
              {failure}
            </p>
          )}
        </form>
      </li>
    )
  }
  return (
    <li>
      <button
        type="button"
        className="secondary open"
        data-testid="previous-chat"
        onClick={() => onOpen(chat.id)}
      >
        <span className="title">{chat.title}</span>
        {chat.updatedAt !== undefined && (
          <span className="when">{when.format(chat.updatedAt)}</span>
        )}
      </button>
      {onRename !== undefined && (
        <button
          ref={rename}
          type="button"
          className="secondary"
          aria-label={`Rename “${chat.title}”`}
          data-testid="rename"
          onClick={() => {
            setTitle(chat.title)
            setRenaming(true)
          }}
        >
          Rename
        </button>
      )}
    </li>
  )
}
