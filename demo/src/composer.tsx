import type { KeyboardEvent, RefObject } from 'react'

type Props = {
  /** The prompt element, so that focus can come back to it after Stop, Regenerate and Retry. */
  input: RefObject<HTMLTextAreaElement | null>
  /** The text typed so far (kept by the app: a failed question comes back to it). */
  text: string
  onText(text: string): void
  busy: boolean
  /** A message sent while an answer runs waits its turn (durable mode): Enter queues it. */
  canQueue: boolean
  canRegenerate: boolean
  onSend(text: string): void
  onStop(): void
  onRegenerate(): void
}

/**
 * The prompt box: Enter sends, Shift+Enter starts a new line, Escape (anywhere) stops. While an
 * answer runs, Enter (or Queue, beside Stop) queues the message when the page can.
 */
export function Composer(props: Props) {
  const { input, text, onText, busy, canQueue, canRegenerate, onSend, onStop, onRegenerate } = props

  const send = () => {
    const value = text.trim()
    if (value === '' || (busy && !canQueue)) return
    onSend(value)
    onText('')
    input.current?.focus()
  }
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      send()
    }
  }

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault()
        send()
      }}
    >
      <textarea
        ref={input}
        data-testid="prompt"
        aria-label="Message"
        placeholder="Ask anything…"
        rows={1}
        autoFocus
        value={text}
        onChange={(event) => onText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer-actions">
        <span className="hint" aria-hidden="true">
          <kbd>Enter</kbd> {busy && canQueue ? 'queue' : 'send'} · <kbd>Shift</kbd>+<kbd>Enter</kbd>{' '}
          new line · <kbd>Esc</kbd> stop
        </span>
        {canRegenerate && !busy && (
          <button
            type="button"
            className="secondary"
            data-testid="regenerate"
            onClick={onRegenerate}
          >
            Regenerate
          </button>
        )}
        {/* Two elements (their keys), not one that changes: a press begun on Send while another
            tab's answer arrives ends on a new Stop, which a click never reaches. */}
        {busy && canQueue && (
          <button
            key="queue"
            type="submit"
            className="secondary"
            data-testid="queue-send"
            disabled={text.trim() === ''}
          >
            Queue
          </button>
        )}
        {busy ? (
          <button key="stop" type="button" className="stop" data-testid="stop" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button key="send" type="submit" data-testid="send" disabled={text.trim() === ''}>
            Send
          </button>
        )}
      </div>
    </form>
  )
}
