import { Fragment, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { relay } from '../../src/client/index.ts'
import type { AssistantTurn, Conversation } from '../../src/index.ts'
import { useChat, type ChatMessage } from '../../src/react/index.ts'
import { Composer } from './composer.tsx'
import { MessageView } from './message-view.tsx'
import { PreviousChats } from './previous-chats.tsx'
import {
  archive,
  load,
  loadHistory,
  loadToken,
  save,
  saveHistory,
  saveToken,
  THINKING_LEVELS,
  type AnswerStats,
  type SavedChat,
  type ThinkingLevel,
} from './storage.ts'
import { seconds, statsOf, timed, type Timing } from './timings.ts'
import { TokenForm } from './token-form.tsx'
import { thinkingLevels, useModels } from './use-models.ts'

const SUGGESTIONS = [
  'Show me a markdown demo.',
  'What is 17 × 24? Think it through step by step.',
  'Explain how a relay keeps API keys out of the browser.',
]

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

export function App() {
  const [saved] = useState(load)
  const [token, setToken] = useState(loadToken)
  // The relay adapter reads the token when it sends, so a new token applies to a retry at once.
  const tokenRef = useRef(token)
  const { models, error: modelsError, needsToken } = useModels(token)
  const [model, setModel] = useState(saved.model ?? 'mock/echo')
  const [thinking, setThinking] = useState<ThinkingLevel>(saved.thinking)
  const [draft, setDraft] = useState('')
  const [history, setHistory] = useState(loadHistory)
  const [announcement, setAnnouncement] = useState('')
  /** The answer a regenerate replaces, shown until the new one is complete. */
  const [replacing, setReplacing] = useState<ChatMessage>()
  const prompt = useRef<HTMLTextAreaElement>(null)
  const focusPrompt = () => prompt.current?.focus()

  // Timings per assistant turn, restored with the conversation they belong to.
  const [byTurn] = useState(() => remember(new WeakMap(), saved.conversation, saved.stats))
  const statsFor = (conversation: Conversation) =>
    conversation.turns.map((turn) =>
      turn.role === 'assistant' ? (byTurn.get(turn) ?? null) : null,
    )
  const live = useRef<Timing>(undefined)
  const adapter = useMemo(() => {
    const headers = (): HeadersInit =>
      tokenRef.current === '' ? {} : { authorization: `Bearer ${tokenRef.current}` }
    return timed(relay({ url: '', model, headers }), live, byTurn)
  }, [model, byTurn])

  // Only the thinking levels this model takes; none for a model that cannot think.
  const levels = thinkingLevels(models?.find((m) => m.id === model))
  const level = levels.includes(thinking)
    ? thinking
    : levels.includes('medium')
      ? 'medium'
      : (levels.find((l) => l !== 'off') ?? levels[0])

  const chat = useChat({
    adapter,
    thinking: level,
    initialConversation: saved.conversation,
    onFinish: (turn) => {
      // A stopped answer never reached `done`: time it from what had arrived.
      if (!byTurn.has(turn) && live.current !== undefined) byTurn.set(turn, statsOf(live.current))
    },
  })
  const { messages, status, error, conversation, stop } = chat
  const busy = status === 'submitted' || status === 'streaming'

  // Fall back to a served model when the saved one is gone.
  useEffect(() => {
    const first = models?.[0]
    if (first !== undefined && !models?.some((m) => m.id === model)) setModel(first.id)
  }, [models, model])

  useEffect(() => {
    save({ model, thinking, conversation, stats: statsFor(conversation) })
  }, [model, thinking, conversation, byTurn, status])

  // A screen reader hears that an answer ended, not every token of it.
  const wasBusy = useRef(false)
  useEffect(() => {
    if (busy && !wasBusy.current) setAnnouncement('')
    if (!busy && wasBusy.current && status === 'ready') {
      const last = messages.at(-1)
      setAnnouncement(
        last?.role === 'assistant' && last.status === 'done'
          ? 'Answer complete.'
          : 'Answer stopped.',
      )
    }
    wasBusy.current = busy
    if (!busy) setReplacing(undefined)
  }, [busy, status, messages])

  const busyRef = useRef(busy)
  useEffect(() => {
    busyRef.current = busy
  }, [busy])
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || !busyRef.current) return
      stop()
      prompt.current?.focus()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [stop])

  // Follow the answer as it grows, unless the reader scrolled up.
  const pinned = useRef(true)
  useEffect(() => {
    const onScroll = () => {
      const { scrollTop, scrollHeight, clientHeight } = document.documentElement
      pinned.current = scrollHeight - scrollTop - clientHeight < 80
    }
    window.addEventListener('scroll', onScroll, { passive: true })
    return () => window.removeEventListener('scroll', onScroll)
  }, [])
  useLayoutEffect(() => {
    if (pinned.current) window.scrollTo({ top: document.documentElement.scrollHeight })
  }, [messages])

  const send = (text: string) => {
    pinned.current = true
    void chat.send(text)
  }
  const regenerate = () => {
    setReplacing(messages.findLast((m) => m.role === 'assistant' && m.turn !== undefined))
    void chat.regenerate()
    focusPrompt()
  }
  const onStop = () => {
    stop()
    focusPrompt()
  }
  const newChat = () => {
    if (conversation.turns.length > 0) {
      setHistory(archive(history, { conversation, stats: statsFor(conversation) }))
    }
    chat.setConversation({ turns: [] })
    focusPrompt()
  }
  const openChat = (item: SavedChat) => {
    const rest = history.filter((h) => h.id !== item.id)
    setHistory(
      conversation.turns.length > 0
        ? archive(rest, { conversation, stats: statsFor(conversation) })
        : saveHistory(rest),
    )
    remember(byTurn, item.conversation, item.stats)
    chat.setConversation(item.conversation)
    focusPrompt()
  }
  const dismiss = () => {
    // The question that failed was never added to the conversation: give it back to the prompt.
    const failed = messages.at(-1)
    if (failed?.role === 'user' && draft.trim() === '') setDraft(failed.text)
    chat.setConversation(conversation)
    focusPrompt()
  }
  const retry = () => {
    // A question whose send failed is sent anew: Chat's regenerate() treats a retry as a
    // replacement, and a second failure would drop the question from the screen.
    const failed = messages.at(-1)
    if (failed?.role === 'user' && failed.parts === undefined) {
      chat.setConversation(conversation)
      send(failed.text)
    } else void chat.regenerate()
    focusPrompt()
  }
  const useToken = (value: string) => {
    tokenRef.current = value
    saveToken(value)
    setToken(value)
    if (status === 'error') retry()
    else focusPrompt()
  }

  const lastUser = messages.findLastIndex((m) => m.role === 'user')
  const showPrevious = busy && replacing !== undefined
  // Stopped before anything arrived: the question stays, with no answer.
  const unanswered = status === 'ready' && messages.at(-1)?.role === 'user'
  const refusedToken = error?.kind === 'auth' && error.status === 401
  const askToken = needsToken || refusedToken
  const options = models ?? [{ id: model }]

  return (
    <div className="app">
      <header className="top">
        <h1>
          <span className="logo" aria-hidden="true" />
          thinkwire
        </h1>
        <div className="controls">
          <label>
            <span>Model</span>
            <select
              data-testid="model"
              value={model}
              disabled={busy}
              onChange={(event) => setModel(event.target.value)}
            >
              {options.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id}
                </option>
              ))}
            </select>
          </label>
          {level !== undefined && (
            <label>
              <span>Thinking</span>
              <select
                data-testid="thinking-level"
                value={level}
                disabled={busy}
                onChange={(event) =>
                  setThinking(THINKING_LEVELS.find((l) => l === event.target.value) ?? 'medium')
                }
              >
                {levels.map((l) => (
                  <option key={l} value={l}>
                    {l}
                  </option>
                ))}
              </select>
            </label>
          )}
          <button
            type="button"
            className="secondary"
            data-testid="new-chat"
            disabled={messages.length === 0 || busy}
            onClick={newChat}
          >
            New chat
          </button>
        </div>
      </header>

      <main className="messages">
        {messages.length === 0 && (
          <section className="empty">
            <h2>Ask something and watch it think.</h2>
            <p>
              Thinking streams live in its own lane, then folds away when the answer starts. The
              conversation, with each model's opaque reasoning state, survives a reload.
            </p>
            {models !== undefined && model.startsWith('mock/') && (
              <p className="note">
                Running on the offline mock model: ask for a markdown demo to see it think. Set a
                provider key in <code>.dev.vars</code> to talk to a real one.
              </p>
            )}
            <div className="suggestions">
              {SUGGESTIONS.map((text) => (
                <button type="button" key={text} onClick={() => send(text)}>
                  {text}
                </button>
              ))}
            </div>
            <PreviousChats chats={history} onOpen={openChat} />
          </section>
        )}
        {messages.map((message, i) => (
          <Fragment key={message.id}>
            <MessageView
              message={message}
              stats={
                message.turn !== undefined
                  ? byTurn.get(message.turn)
                  : live.current === undefined
                    ? undefined
                    : statsOf(live.current)
              }
            />
            {showPrevious && i === lastUser && (
              <MessageView
                message={replacing}
                stats={replacing.turn && byTurn.get(replacing.turn)}
                previous
              />
            )}
          </Fragment>
        ))}
        {unanswered && (
          <article className="message assistant" data-status="stopped">
            <h2 className="sr-only">The model said (stopped)</h2>
            <p className="stopped-note" data-testid="stopped-note">
              Stopped before the answer started. Regenerate to ask again.
            </p>
            <footer className="meta">
              <span className="badge">stopped</span>
            </footer>
          </article>
        )}
        {status === 'submitted' && (
          <div className="pending" role="img" aria-label="Waiting for the model">
            <span />
            <span />
            <span />
          </div>
        )}
        <div className="sr-only" role="status" data-testid="announcer">
          {announcement}
        </div>
      </main>

      <footer className="bottom">
        {askToken && <TokenForm refused={token !== ''} onToken={useToken} />}
        {((error !== undefined && !refusedToken) || modelsError !== undefined) && (
          <div className="error" role="alert" data-testid="error">
            <p>
              {error !== undefined ? (
                <>
                  <strong>{error.kind}</strong> {error.message}
                  {error.retryAfterMs !== undefined &&
                    ` (try again in ${seconds(error.retryAfterMs)})`}
                </>
              ) : (
                modelsError
              )}
            </p>
            {error !== undefined && (
              <div>
                <button type="button" data-testid="retry" onClick={retry}>
                  Retry
                </button>
                <button type="button" className="secondary" onClick={dismiss}>
                  Dismiss
                </button>
              </div>
            )}
          </div>
        )}
        <Composer
          input={prompt}
          text={draft}
          onText={setDraft}
          busy={busy}
          canRegenerate={status === 'ready' && lastUser >= 0}
          onSend={send}
          onStop={onStop}
          onRegenerate={regenerate}
        />
      </footer>
    </div>
  )
}
