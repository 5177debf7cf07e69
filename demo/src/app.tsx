import { Fragment, useEffect, useLayoutEffect, useRef, useState } from 'react'
import type { ChatMessage } from '../../src/react/index.ts'
import { answerEnd } from './answer-end.ts'
import { ApprovalCard } from './approval-card.tsx'
import { Composer } from './composer.tsx'
import type { DemoChat, DemoChatOptions } from './demo-chat.ts'
import { MessageView } from './message-view.tsx'
import { PreviousChats } from './previous-chats.tsx'
import {
  loadSettings,
  loadToken,
  saveSettings,
  saveToken,
  THINKING_LEVELS,
  type ThinkingLevel,
} from './storage.ts'
import { seconds, type LiveTiming } from './timings.ts'
import { TokenForm } from './token-form.tsx'
import { TransportLabel } from './transport-label.tsx'
import { useDurableChat } from './use-durable-chat.ts'
import { thinkingLevels, useModels } from './use-models.ts'
import { useStatelessChat } from './use-stateless-chat.ts'

const SUGGESTIONS = [
  'Show me a markdown demo.',
  'What is 17 × 24? Think it through step by step.',
  'Explain how a relay keeps API keys out of the browser.',
]

/**
 * The transport, chosen once per page load: a durable conversation on the relay (the default), or
 * `/?transport=stateless` for `POST /v1/chat` with the conversation held in this page.
 */
const STATELESS = new URLSearchParams(location.search).get('transport') === 'stateless'
const useDemoChat: (options: DemoChatOptions) => DemoChat = STATELESS
  ? useStatelessChat
  : useDurableChat

export function App() {
  const [settings] = useState(loadSettings)
  const [token, setToken] = useState(loadToken)
  // The relay clients read the token when they send, so a new token applies to a retry at once.
  const tokenRef = useRef(token)
  const [headers] = useState(
    () => (): HeadersInit =>
      tokenRef.current === '' ? {} : { authorization: `Bearer ${tokenRef.current}` },
  )
  const [live] = useState<LiveTiming>(() => ({ current: undefined }))
  const { models, error: modelsError, needsToken, tokenReason, forToken } = useModels(token)
  const [model, setModel] = useState(settings.model ?? 'mock/echo')
  const [thinking, setThinking] = useState<ThinkingLevel>(settings.thinking)
  /** Durable mode: each message names the Worker's server tools. */
  const [serverTools, setServerTools] = useState(false)
  const [draft, setDraft] = useState('')
  // The question whose failed answer was dismissed: it stays unanswered, and says why.
  const [dismissedFailure, setDismissedFailure] = useState<string>()
  const [announcement, setAnnouncement] = useState('')
  /** The answer a regenerate replaces, shown until the new one is complete. */
  const [replacing, setReplacing] = useState<ChatMessage>()
  /** Why an answer is still there after a regenerate of it stopped or failed: said on it. */
  const [kept, setKept] = useState<{ id: string; note: string }>()
  /** This page stopped the answer in flight (its Stop, or Escape). */
  const stoppedHere = useRef(false)
  const prompt = useRef<HTMLTextAreaElement>(null)
  const focusPrompt = () => prompt.current?.focus()

  // Only the thinking levels this model takes; none for a model that cannot think.
  const levels = thinkingLevels(models?.find((m) => m.id === model))
  const level = levels.includes(thinking)
    ? thinking
    : levels.includes('medium')
      ? 'medium'
      : (levels.find((l) => l !== 'off') ?? levels[0])

  const chat = useDemoChat({ model, thinking: level, headers, live, token, serverTools })
  const { messages, status, error, stop, durable } = chat
  const busy = status === 'submitted' || status === 'streaming'
  /** Messages wait in the relay's queue (durable mode): the conversation cannot be changed now. */
  const queued = (durable?.queue.length ?? 0) > 0

  // Fall back to a served model when the saved one is gone.
  useEffect(() => {
    const first = models?.[0]
    if (first !== undefined && !models?.some((m) => m.id === model)) setModel(first.id)
  }, [models, model])

  useEffect(() => saveSettings({ model, thinking }), [model, thinking])

  // A screen reader hears that an answer ended (and how), not every token of it.
  const wasBusy = useRef(false)
  useEffect(() => {
    if (busy && !wasBusy.current) {
      setAnnouncement('')
      setKept(undefined)
    }
    if (!busy && wasBusy.current) {
      const end = answerEnd(status, messages, replacing, stoppedHere.current)
      const last = messages.at(-1)
      setAnnouncement(end.announcement)
      setKept(
        end.note === undefined || last === undefined ? undefined : { id: last.id, note: end.note },
      )
      stoppedHere.current = false
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
      stoppedHere.current = true
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
    chat.send(text)
  }
  /** The answer a regenerate now would replace: the last one, when it is the last message. */
  const lastAnswer = () => {
    const last = messages.at(-1)
    return last?.role === 'assistant' && last.turn !== undefined ? last : undefined
  }
  const regenerate = () => {
    setReplacing(lastAnswer())
    chat.regenerate()
    focusPrompt()
  }
  const edit = (index: number, text: string) => {
    pinned.current = true
    durable?.edit(index, text)
    focusPrompt()
  }
  const clearQueue = () => {
    durable?.clearQueue()
    focusPrompt()
  }
  const onStop = () => {
    stoppedHere.current = true
    stop()
    focusPrompt()
  }
  const newChat = () => {
    setKept(undefined)
    chat.newChat()
    focusPrompt()
  }
  const openChat = (id: string) => {
    setKept(undefined)
    chat.open(id)
    focusPrompt()
  }
  const dismiss = () => {
    // A question that never reached the conversation goes back to the prompt.
    const failed = chat.dismiss()
    if (failed !== undefined && draft.trim() === '') setDraft(failed)
    else if (failed === undefined) setDismissedFailure(messages.at(-1)?.id)
    focusPrompt()
  }
  const retry = () => {
    // After a regenerate that failed, the retry is one more regenerate of the same answer.
    if (!chat.interrupted) setReplacing(lastAnswer())
    chat.retry()
    focusPrompt()
  }
  // A token given while a send is still on its way (sent with the token before) retries that send
  // once the relay refuses it.
  const retryWhenRefused = useRef(false)
  const useToken = (value: string) => {
    tokenRef.current = value
    saveToken(value)
    setToken(value)
    retryWhenRefused.current = busy
    if (status === 'error') retry()
    else focusPrompt()
  }

  const lastUser = messages.findLastIndex((m) => m.role === 'user')
  const showPrevious = busy && replacing !== undefined
  // Stopped before anything arrived, or a failed answer dismissed: the question stays, unanswered.
  const unanswered = status === 'ready' && messages.at(-1)?.role === 'user' && !chat.interrupted
  const failedNote = unanswered && dismissedFailure === messages.at(-1)?.id
  const refusedToken = error?.kind === 'auth' && error.status === 401
  const askToken = needsToken || refusedToken
  // A new token is not called refused before the relay has answered it.
  const tokenState = forToken !== token ? 'checking' : token === '' ? 'needed' : 'refused'
  useEffect(() => {
    if (busy) return
    if (retryWhenRefused.current && refusedToken) retry()
    retryWhenRefused.current = false
  }, [busy])
  const options = models ?? [{ id: model }]

  return (
    <div className="app">
      <header className="top">
        <div className="brand">
          <h1>
            <span className="logo" aria-hidden="true" />
            thinkwire
          </h1>
          <TransportLabel stateless={STATELESS} />
        </div>
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
          {!STATELESS && (
            <label className="tools-toggle">
              <input
                type="checkbox"
                data-testid="server-tools"
                checked={serverTools}
                onChange={(event) => setServerTools(event.target.checked)}
              />
              Server tools
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
              Thinking streams live in its own lane, then folds away when the answer starts.{' '}
              {STATELESS
                ? "This page holds the conversation, with each model's opaque reasoning state, and keeps it across a reload."
                : 'The conversation lives on the relay: reload mid-answer, lose the network or open this address in a second tab, and the answer keeps streaming.'}
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
            <PreviousChats chats={chat.previous} onOpen={openChat} onRename={durable?.rename} />
          </section>
        )}
        {messages.map((message, i) => (
          <Fragment key={message.id}>
            <MessageView
              message={message}
              stats={chat.statsFor(message)}
              note={kept?.id === message.id ? kept.note : undefined}
              interrupted={chat.cutAnswer?.id === message.id ? chat.cutAnswer.note : undefined}
              versions={
                durable && {
                  busy: busy || queued,
                  select: (index) => durable.selectBranch(i, index),
                }
              }
              onEdit={
                durable && !busy && !queued && !chat.approvals?.waiting.length
                  ? (text) => edit(i, text)
                  : undefined
              }
            />
            {showPrevious && i === lastUser && (
              <MessageView message={replacing} stats={chat.statsFor(replacing)} previous />
            )}
          </Fragment>
        ))}
        {unanswered && (
          <article className="message assistant" data-status={failedNote ? 'failed' : 'stopped'}>
            <h2 className="sr-only">The model said ({failedNote ? 'failed' : 'stopped'})</h2>
            <p className="stopped-note" data-testid="stopped-note">
              {failedNote
                ? 'The answer failed. Regenerate to ask again.'
                : 'Stopped before the answer started. Regenerate to ask again.'}
            </p>
            <footer className="meta">
              <span className="badge">{failedNote ? 'failed' : 'stopped'}</span>
            </footer>
          </article>
        )}
        {chat.interrupted && !busy && (
          <article className="message assistant" data-status="interrupted">
            <h2 className="sr-only">The model said (interrupted)</h2>
            <p className="stopped-note" data-testid="interrupted-note">
              Interrupted: the page was reloaded before the answer came. Retry to ask again.
            </p>
            <footer className="meta">
              <span className="badge">interrupted</span>
              <button
                type="button"
                className="secondary"
                data-testid="retry-interrupted"
                onClick={retry}
              >
                Retry
              </button>
            </footer>
          </article>
        )}
        {chat.approvals?.waiting.map((approval) => (
          <ApprovalCard
            key={approval.approvalId}
            approval={approval}
            onApprove={() => {
              chat.approvals?.approve(approval.approvalId)
              focusPrompt()
            }}
            onDeny={() => {
              chat.approvals?.deny(approval.approvalId)
              focusPrompt()
            }}
          />
        ))}
        {status === 'submitted' && (
          <div className="pending" role="img" aria-label="Waiting for the model">
            <span />
            <span />
            <span />
          </div>
        )}
        {durable !== undefined && queued && (
          <section className="queue" aria-labelledby="queue-title" data-testid="queue">
            <h2 id="queue-title">Queued: sent when the answer before it ends</h2>
            <ol>
              {durable.queue.map((text, i) => (
                <li key={i} className="queued-message" data-testid="queued-message">
                  <div className="bubble">{text}</div>
                </li>
              ))}
            </ol>
            <button
              type="button"
              className="secondary"
              aria-label="Cancel the queued messages"
              data-testid="cancel-queue"
              onClick={clearQueue}
            >
              Cancel
            </button>
          </section>
        )}
        <div className="sr-only" role="status" data-testid="announcer">
          {announcement}
        </div>
      </main>

      <footer className="bottom">
        {askToken && <TokenForm state={tokenState} reason={tokenReason} onToken={useToken} />}
        {chat.reconnecting && busy && (
          <p className="notice" role="status" data-testid="reconnecting">
            Connection lost: reconnecting, the answer goes on at the relay.
          </p>
        )}
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
          canQueue={durable !== undefined}
          canRegenerate={status === 'ready' && lastUser >= 0 && !chat.interrupted && !queued}
          onSend={send}
          onStop={onStop}
          onRegenerate={regenerate}
        />
      </footer>
    </div>
  )
}
