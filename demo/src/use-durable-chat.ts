import { useEffect, useMemo, useRef, useState } from 'react'
import {
  relayConversation,
  type ChatStore,
  type RelayConversation,
} from '../../src/client/index.ts'
import type { ChatSnapshot } from '../../src/core/chat.ts'
import { toThinkwireError } from '../../src/core/errors.ts'
import { responseError } from '../../src/client/relay.ts'
import type { AssistantTurn, ThinkwireError } from '../../src/index.ts'
import { useConversation, type ChatMessage } from '../../src/react/index.ts'
import { cutAnswer } from './cut-answer.ts'
import type { DemoChat, DemoChatOptions, PreviousChat } from './demo-chat.ts'
import { loadTimings, saveTimings, type AnswerStats } from './storage.ts'
import { relayThinkingMs, timeStore, timingFetch } from './timings.ts'

/** Stands in for the store until the first one is made (right after the first render). */
const EMPTY: ChatSnapshot = {
  conversation: { turns: [] },
  messages: [],
  status: 'ready',
  error: undefined,
}
const idle: ChatStore = {
  subscribe: () => () => {},
  getSnapshot: () => EMPTY,
  send: async () => {},
  stop: () => {},
  regenerate: async () => {},
}

/** The Worker's server tools (`worker/tools.ts`), named by each message when the page says so. */
const SERVER_TOOLS = ['clock', 'save_note']

/** The conversation the page's address names (`?c=<id>`). */
function idInUrl(): string | undefined {
  return new URLSearchParams(location.search).get('c') ?? undefined
}

/** Puts a conversation's id in the address: a new history entry, or in place of the current one. */
function showInUrl(id: string | undefined, entry: 'push' | 'replace'): void {
  const url = new URL(location.href)
  if (id === undefined) url.searchParams.delete('c')
  else url.searchParams.set('c', id)
  if (url.href === location.href) return
  if (entry === 'push') history.pushState(null, '', url)
  else history.replaceState(null, '', url)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `GET /v1/conversations`, as lines of the list of earlier chats. */
async function listConversations(headers: HeadersInit, signal: AbortSignal) {
  const response = await fetch('/v1/conversations', { headers, signal })
  if (!response.ok) return undefined
  const body: unknown = await response.json()
  const list = isRecord(body) ? body['conversations'] : undefined
  if (!Array.isArray(list)) return undefined
  return list.flatMap((item): PreviousChat[] => {
    if (!isRecord(item) || typeof item['id'] !== 'string') return []
    const { id, title, updatedAt } = item
    const when = typeof updatedAt === 'string' ? Date.parse(updatedAt) : Number.NaN
    return [
      {
        id,
        title: typeof title === 'string' && title !== '' ? title : 'Untitled chat',
        updatedAt: Number.isNaN(when) ? undefined : when,
      },
    ]
  })
}

/**
 * The default mode: a durable conversation on the relay (one Durable Object each), named in the
 * address as `?c=<id>` once the first message creates it. A reload or a second tab on the same
 * address attaches to the answer in flight; an idle tab follows messages sent elsewhere; Stop
 * stops the answer for every tab. New chat opens an empty conversation and deletes nothing; the
 * earlier ones come from `GET /v1/conversations`.
 */
export function useDurableChat(options: DemoChatOptions): DemoChat {
  const { model, thinking, headers, live, token, serverTools } = options
  /** The conversation open (none yet: the first send creates one); `n` counts openings. */
  const [open, setOpen] = useState(() => ({ id: idInUrl(), n: 0 }))
  const [store, setStore] = useState<RelayConversation>()
  const [loadError, setLoadError] = useState<ThinkwireError>()
  const [previous, setPrevious] = useState<readonly PreviousChat[]>([])
  const [byTurn] = useState(() => new WeakMap<AssistantTurn, AnswerStats>())
  const modelRef = useRef(model)
  modelRef.current = model

  useEffect(() => {
    const made = relayConversation({
      url: '',
      model: modelRef.current,
      id: open.id,
      headers,
      fetch: timingFetch(live),
      follow: true,
      onId: (id) => showInUrl(id, 'replace'),
    })
    const untime = timeStore(made, live, byTurn)
    setStore(made)
    setLoadError(undefined)
    made.load().catch((error: unknown) => setLoadError(toThinkwireError(error, 'relay')))
    return () => {
      untime()
      made.dispose()
    }
  }, [open, headers, live, byTurn])

  // The model is read at each send: a pick applies to the next message of this conversation.
  useEffect(() => store?.update({ model }), [store, model])

  // A conversation that could not load for want of a token loads once one is given.
  const needsToken = loadError?.status === 401
  useEffect(() => {
    if (needsToken) setOpen((current) => ({ ...current, n: current.n + 1 }))
  }, [token])

  // Back and forward move between the conversations opened here.
  useEffect(() => {
    const onPop = () => {
      const id = idInUrl()
      if (id !== store?.id) setOpen((current) => ({ id, n: current.n + 1 }))
    }
    window.addEventListener('popstate', onPop)
    return () => window.removeEventListener('popstate', onPop)
  }, [store])

  const chat = useConversation<ChatStore>(store ?? idle)
  const busy = chat.status === 'submitted' || chat.status === 'streaming'
  // A load that could not reach the relay is tried again by the store: once it is, the error goes.
  useEffect(() => {
    if (chat.status !== 'error') setLoadError(undefined)
  }, [chat.status])
  const { turns } = chat.conversation

  // Timings measured here are kept per conversation, so they are still shown after a reload.
  const openId = store?.id
  const saved = useMemo(() => (openId === undefined ? [] : loadTimings(openId)), [openId, busy])
  const timingOf = (turn: AssistantTurn) =>
    byTurn.get(turn) ?? saved[turns.indexOf(turn)] ?? undefined
  useEffect(() => {
    if (busy || openId === undefined) return
    const stats = turns.map((turn) => (turn.role === 'assistant' ? (timingOf(turn) ?? null) : null))
    if (stats.some((stat) => stat !== null)) saveTimings(openId, stats)
  }, [busy, openId, turns])

  // The list, fetched again whenever an answer ends (titles and order change).
  useEffect(() => {
    if (busy) return
    const controller = new AbortController()
    listConversations(headers(), controller.signal)
      .then((list) => list !== undefined && setPrevious(list))
      .catch(() => {})
    return () => controller.abort()
  }, [busy, token, store, headers])

  const call = () => ({
    ...(thinking === undefined ? {} : { thinking }),
    ...(serverTools ? { serverTools: SERVER_TOOLS } : {}),
  })
  const timeCall = () => {
    live.current = { startedAt: performance.now() }
  }
  const reopen = (id: string | undefined) => {
    showInUrl(id, 'push')
    setOpen((current) => ({ id, n: current.n + 1 }))
  }
  return {
    messages: chat.messages,
    status: chat.status,
    error: chat.error ?? loadError,
    reconnecting: chat.reconnecting === true,
    // The relay keeps the answer going through a reload: nothing is cut off.
    interrupted: false,
    // A restart of the relay may cut one, though: it says so, and the answer says what became of it.
    cutAnswer: cutAnswer(chat.messages, chat.interrupted),
    send: (text) => {
      // Sent while an answer runs, it is queued: that answer is the one timed.
      if (!busy) timeCall()
      void chat.send(text, call())
    },
    stop: chat.stop,
    regenerate: () => {
      timeCall()
      void chat.regenerate(call())
    },
    retry: () => {
      if (loadError !== undefined) return setOpen((current) => ({ ...current, n: current.n + 1 }))
      // A question the relay refused is sent again; after a failed answer, a new answer is asked.
      timeCall()
      void chat.regenerate(call())
    },
    dismiss: () => {
      if (loadError !== undefined) {
        reopen(undefined)
        return undefined
      }
      const refused = store?.dismiss()
      return refused?.role === 'user' && typeof refused.content === 'string'
        ? refused.content
        : undefined
    },
    newChat: () => reopen(undefined),
    approvals: {
      waiting: chat.pending?.approvals ?? [],
      approve: (approvalId) => void chat.approve?.(approvalId),
      deny: (approvalId) => void chat.deny?.(approvalId),
    },
    durable: {
      selectBranch: (messageIndex, index) => void chat.selectBranch?.(messageIndex, index),
      edit: (messageIndex, text) => {
        timeCall()
        void chat.edit?.(messageIndex, text, call())
      },
      queue: (chat.queue ?? []).map((turn) =>
        typeof turn.content === 'string' ? turn.content : '[attachments]',
      ),
      clearQueue: () => void chat.clearQueue?.(),
      // A chat of the list, not the one open: `PATCH /v1/conversations/:id` as the store's
      // rename() sends it for its own.
      rename: async (id, title) => {
        const sent = new Headers(headers())
        sent.set('content-type', 'application/json')
        const body = JSON.stringify({ title })
        const response = await fetch(`/v1/conversations/${id}`, {
          method: 'PATCH',
          headers: sent,
          body,
        })
        if (!response.ok) throw await responseError(response, 'relay')
        const renamed: unknown = await response.json()
        const shown =
          isRecord(renamed) && typeof renamed['title'] === 'string' ? renamed['title'] : title
        setPrevious((list) =>
          list.map((item) => (item.id === id ? { ...item, title: shown } : item)),
        )
      },
    },
    previous: previous.filter((item) => item.id !== openId),
    open: (id) => reopen(id),
    statsFor: (message: ChatMessage) => {
      if (message.turn === undefined) return undefined
      // How long it thought is the relay's figure: every tab and every reload shows the same.
      const thoughtMs = relayThinkingMs(message.turn)
      const stats = timingOf(message.turn)
      return thoughtMs === undefined ? stats : { ...stats, thoughtMs }
    },
  }
}
