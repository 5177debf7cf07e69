import type { PreviousChat } from './demo-chat.ts'

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

type Props = {
  chats: readonly PreviousChat[]
  onOpen(id: string): void
}

/** Earlier chats (the relay's list, or localStorage's in stateless mode), each one click away. */
export function PreviousChats({ chats, onOpen }: Props) {
  if (chats.length === 0) return null
  return (
    <section className="previous-chats" aria-labelledby="previous-chats-title">
      <h3 id="previous-chats-title">Previous chats</h3>
      <ul>
        {chats.map((chat) => (
          <li key={chat.id}>
            <button
              type="button"
              className="secondary"
              data-testid="previous-chat"
              onClick={() => onOpen(chat.id)}
            >
              <span className="title">{chat.title}</span>
              {chat.updatedAt !== undefined && (
                <span className="when">{when.format(chat.updatedAt)}</span>
              )}
            </button>
          </li>
        ))}
      </ul>
    </section>
  )
}
