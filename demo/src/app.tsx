import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { relay } from '../../src/client/index.ts'
import type { AssistantTurn } from '../../src/index.ts'
import { useChat } from '../../src/react/index.ts'
import { Composer } from './composer.tsx'
import { MessageView } from './message-view.tsx'
import { load, save, THINKING_LEVELS, type AnswerStats, type ThinkingLevel } from './storage.ts'
import { seconds, statsOf, timed, type Timing } from './timings.ts'
import { useModels } from './use-models.ts'

const SUGGESTIONS = [
  'What is 17 × 24? Think it through step by step.',
  'Explain how a relay keeps API keys out of the browser.',
  'Write a haiku about streaming tokens.',
]

export function App() {
  const [saved] = useState(load)
  const { models, error: modelsError } = useModels()
  const [model, setModel] = useState(saved.model ?? 'mock/echo')
  const [thinking, setThinking] = useState<ThinkingLevel>(saved.thinking)

  // Timings per assistant turn, restored with the conversation they belong to.
  const [byTurn] = useState(() => {
    const map = new WeakMap<AssistantTurn, AnswerStats>()
    saved.conversation.turns.forEach((turn, i) => {
      const stats = saved.stats[i]
      if (turn.role === 'assistant' && stats) map.set(turn, stats)
    })
    return map
  })
  const live = useRef<Timing>(undefined)
  const adapter = useMemo(() => timed(relay({ url: '', model }), live, byTurn), [model, byTurn])

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
  const busy = status === 'submitted' || status === 'streaming'

  // Fall back to a served model when the saved one is gone.
  useEffect(() => {
    const first = models?.[0]
    if (first !== undefined && !models?.some((m) => m.id === model)) setModel(first.id)
  }, [models, model])

  useEffect(() => {
    save({
      model,
      thinking,
      conversation,
      stats: conversation.turns.map((turn) =>
        turn.role === 'assistant' ? (byTurn.get(turn) ?? null) : null,
      ),
    })
  }, [model, thinking, conversation, byTurn, status])

  const { stop } = chat
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') stop()
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
  const lastAnswer = messages.findLast((m) => m.role === 'assistant')
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
          <label>
            <span>Thinking</span>
            <select
              data-testid="thinking-level"
              value={thinking}
              disabled={busy}
              onChange={(event) =>
                setThinking(
                  THINKING_LEVELS.find((level) => level === event.target.value) ?? 'medium',
                )
              }
            >
              {THINKING_LEVELS.map((level) => (
                <option key={level} value={level}>
                  {level}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            className="secondary"
            data-testid="new-chat"
            disabled={messages.length === 0}
            onClick={() => chat.setConversation({ turns: [] })}
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
            {model.startsWith('mock/') && (
              <p className="note">
                Running on the offline mock model. Set a provider key in <code>.dev.vars</code> to
                talk to a real one.
              </p>
            )}
            <div className="suggestions">
              {SUGGESTIONS.map((text) => (
                <button type="button" key={text} onClick={() => send(text)}>
                  {text}
                </button>
              ))}
            </div>
          </section>
        )}
        {messages.map((message) => (
          <MessageView
            key={message.id}
            message={message}
            stats={
              message.turn !== undefined
                ? byTurn.get(message.turn)
                : live.current === undefined
                  ? undefined
                  : statsOf(live.current)
            }
            latest={message === lastAnswer}
          />
        ))}
        {status === 'submitted' && (
          <div className="pending" aria-label="Waiting for the model">
            <span />
            <span />
            <span />
          </div>
        )}
      </main>

      <footer className="bottom">
        {(error !== undefined || modelsError !== undefined) && (
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
                <button type="button" data-testid="retry" onClick={() => void chat.regenerate()}>
                  Retry
                </button>
                <button
                  type="button"
                  className="secondary"
                  onClick={() => chat.setConversation(conversation)}
                >
                  Dismiss
                </button>
              </div>
            )}
          </div>
        )}
        <Composer
          busy={busy}
          canRegenerate={lastAnswer !== undefined && status === 'ready'}
          onSend={send}
          onStop={stop}
          onRegenerate={() => void chat.regenerate()}
        />
      </footer>
    </div>
  )
}
