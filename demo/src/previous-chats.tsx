import type { SavedChat } from './storage.ts'

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

type Props = {
  chats: readonly SavedChat[]
  onOpen(chat: SavedChat): void
}

/** The chats "New chat" put aside (kept in localStorage), each one click from coming back. */
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
              onClick={() => onOpen(chat)}
            >
              <span className="title">{chat.title}</span>
              <span className="when">{when.format(chat.savedAt)}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  )
}
