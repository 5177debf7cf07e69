import { useEffect, useMemo, useState } from 'react'
import { relay } from '../../src/client/index.ts'
import type { AssistantTurn, Conversation } from '../../src/index.ts'
import { useChat, type ChatMessage } from '../../src/react/index.ts'
import type { DemoChat, DemoChatOptions } from './demo-chat.ts'
import {
  archive,
  load,
  loadHistory,
  save,
  saveHistory,
  type AnswerStats,
  type SavedChat,
} from './storage.ts'
import { statsOf, timed, timingFetch } from './timings.ts'

/** Puts the saved timings of a conversation's answers back in `byTurn`. */
function remember(
  byTurn: WeakMap<AssistantTurn, AnswerStats>,
  conversation: Conversation,
  stats: SavedChat['stats'],
): WeakMap<AssistantTurn, AnswerStats> {
  conversation.turns.forEach((turn, i) => {
    const stat = stats[i]
    if (turn.role === 'assistant' && stat) byTurn.set(turn, stat)
  })
  return byTurn
}

/**
 * The stateless mode (`/?transport=stateless`): `POST /v1/chat` with the whole conversation each
 * time, held in this page and kept in localStorage, with earlier chats kept there too.
 */
export function useStatelessChat(options: DemoChatOptions): DemoChat {
  const { model, thinking, headers, live } = options
  const [saved] = useState(load)
  const [history, setHistory] = useState(loadHistory)
  // Timings per assistant turn, restored with the conversation they belong to.
  const [byTurn] = useState(() => remember(new WeakMap(), saved.conversation, saved.stats))
  const statsFor = (conversation: Conversation) =>
    conversation.turns.map((turn) =>
      turn.role === 'assistant' ? (byTurn.get(turn) ?? null) : null,
    )
  // The relay adapter reads the headers when it sends, so a new token applies to a retry at once.
  const adapter = useMemo(
    () => timed(relay({ url: '', model, headers, fetch: timingFetch(live) }), live, byTurn),
    [model, headers, live, byTurn],
  )
  const chat = useChat({
    adapter,
    thinking,
    initialConversation: saved.conversation,
    onFinish: (turn) => {
      // A stopped answer never reached `done`: time it from what had arrived.
      if (!byTurn.has(turn) && live.current !== undefined) byTurn.set(turn, statsOf(live.current))
    },
  })
  const { messages, status, error, conversation } = chat

  useEffect(() => {
    save({ model, thinking: thinking ?? 'medium', conversation, stats: statsFor(conversation) })
  }, [model, thinking, conversation, byTurn, status])

  const send = (text: string) => void chat.send(text)
  return {
    messages,
    status,
    error,
    send,
    stop: chat.stop,
    regenerate: () => void chat.regenerate(),
    retry: () => {
      // A question whose send failed is sent anew: Chat's regenerate() treats a retry as a
      // replacement, and a second failure would drop the question from the screen.
      const failed = messages.at(-1)
      if (failed?.role === 'user' && failed.parts === undefined) {
        chat.setConversation(conversation)
        send(failed.text)
      } else void chat.regenerate()
    },
    dismiss: () => {
      // The question that failed was never added to the conversation: give it back.
      const failed = messages.at(-1)
      chat.setConversation(conversation)
      return failed?.role === 'user' ? failed.text : undefined
    },
    newChat: () => {
      if (conversation.turns.length > 0) {
        setHistory(archive(history, { conversation, stats: statsFor(conversation) }))
      }
      chat.setConversation({ turns: [] })
    },
    previous: history.map((h) => ({ id: h.id, title: h.title, updatedAt: h.savedAt })),
    open: (id: string) => {
      const item = history.find((h) => h.id === id)
      if (item === undefined) return
      const rest = history.filter((h) => h.id !== id)
      setHistory(
        conversation.turns.length > 0
          ? archive(rest, { conversation, stats: statsFor(conversation) })
          : saveHistory(rest),
      )
      remember(byTurn, item.conversation, item.stats)
      chat.setConversation(item.conversation)
    },
    statsFor: (message: ChatMessage) =>
      message.turn !== undefined
        ? byTurn.get(message.turn)
        : live.current === undefined
          ? undefined
          : statsOf(live.current),
  }
}
