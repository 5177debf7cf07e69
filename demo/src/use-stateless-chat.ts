import { useEffect, useMemo, useState } from 'react'
import { messageId } from '../../src/core/messages.ts'
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
 * time, held in this page and kept in localStorage, with earlier chats kept there too. A question
 * is kept as it is sent: one whose answer a reload cut off comes back as interrupted, and
 * `retry()` sends it again.
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
  const { status, error, conversation } = chat
  // The question a reload cut off, until it is sent again (or another one is).
  const [interrupted, setInterrupted] = useState(saved.pending)
  // The conversation takes a question in with its answer: until then (while it is answered, or
  // after its send failed), it is kept on its own, as the turn after the conversation's.
  const next = messageId(conversation.turns.length)
  const asked = chat.messages.find((m) => m.role === 'user' && m.id === next)
  const pending = status === 'ready' ? interrupted : (asked?.text ?? interrupted)
  const messages =
    interrupted === undefined
      ? chat.messages
      : [...chat.messages, interruptedMessage(conversation.turns.length, interrupted)]

  useEffect(() => {
    save({
      model,
      thinking: thinking ?? 'medium',
      conversation,
      stats: statsFor(conversation),
      pending,
    })
  }, [model, thinking, conversation, byTurn, status, pending])

  const send = (text: string) => {
    setInterrupted(undefined)
    void chat.send(text)
  }
  const again = interrupted === undefined ? undefined : () => send(interrupted)
  return {
    messages,
    status,
    error,
    // A stream of POST /v1/chat is not resumed: a drop is an error.
    reconnecting: false,
    interrupted: interrupted !== undefined,
    send,
    stop: chat.stop,
    regenerate: () => (again === undefined ? void chat.regenerate() : again()),
    retry: () => {
      if (again !== undefined) return again()
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
      setInterrupted(undefined)
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
      setInterrupted(undefined)
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

/** The question a reload cut off, shown where its turn will be once it is sent again. */
function interruptedMessage(index: number, text: string): ChatMessage {
  return { id: messageId(index), role: 'user', text, thinking: '', toolCalls: [], status: 'done' }
}
