import { useEffect, useRef, useState } from 'react'
import type { ChatMessage } from '../../src/react/index.ts'
import { Markdown } from './markdown.tsx'
import { MessageEditor } from './message-editor.tsx'
import type { AnswerStats } from './storage.ts'
import { ThinkingLane } from './thinking-lane.tsx'
import { duration, seconds } from './timings.ts'
import { VersionPager } from './version-pager.tsx'

/** What a page does with the versions of a message (durable mode). */
export type Versions = {
  /** While an answer runs, none can be chosen. */
  busy: boolean
  select(index: number): void
}

type Props = {
  message: ChatMessage
  stats: AnswerStats | undefined
  /** The answer a regenerate will replace, shown until the new one is complete. */
  previous?: boolean | undefined
  /** Says why this answer is still here (a regenerate of it stopped or failed). */
  note?: string | undefined
  /** Says that a restart of the relay cut this answer, and what became of it. */
  interrupted?: string | undefined
  /** A pager under the message when it has other versions (durable mode). */
  versions?: Versions | undefined
  /** Edits a question in place (durable mode, while nothing runs or waits). */
  onEdit?: ((text: string) => void) | undefined
}

const format = new Intl.NumberFormat()

/** Says who spoke, to assistive technology only (the layout says it to the eye). */
function Speaker({ children }: { children: string }) {
  return <h2 className="sr-only">{children}</h2>
}

/** The pager of a message with other versions, when the page offers them. */
function pagerOf(message: ChatMessage, versions: Versions | undefined) {
  if (message.branch === undefined || versions === undefined) return null
  return (
    <VersionPager
      branch={message.branch}
      of={message.role === 'user' ? 'question' : 'answer'}
      disabled={versions.busy}
      onSelect={versions.select}
    />
  )
}

/**
 * A question: its bubble, or its editor while it is edited; Edit (when the page offers it) and the
 * pager of its versions under it. Cancel gives the focus back to Edit.
 */
function UserMessage({
  message,
  versions,
  onEdit,
}: Pick<Props, 'message' | 'versions' | 'onEdit'>) {
  const [editing, setEditing] = useState(false)
  const edit = useRef<HTMLButtonElement>(null)
  const cancelled = useRef(false)
  useEffect(() => {
    if (editing || !cancelled.current) return
    cancelled.current = false
    edit.current?.focus()
  }, [editing])
  const canEdit = onEdit !== undefined && message.parts === undefined
  // An answer that starts meanwhile (another tab's) closes the editor: nothing may change then.
  if (editing && !canEdit) setEditing(false)
  const open = editing && canEdit
  const pager = pagerOf(message, versions)
  return (
    <article className="message user" data-testid="user-message">
      <Speaker>You said</Speaker>
      {open ? (
        <MessageEditor
          text={message.text}
          onSave={(text) => {
            setEditing(false)
            onEdit(text)
          }}
          onCancel={() => {
            cancelled.current = true
            setEditing(false)
          }}
        />
      ) : (
        <div className="bubble">{message.text}</div>
      )}
      {!open && (pager !== null || canEdit) && (
        <div className="message-actions">
          {pager}
          {canEdit && (
            <button
              ref={edit}
              type="button"
              className="secondary"
              aria-label="Edit this message"
              data-testid="edit"
              onClick={() => setEditing(true)}
            >
              Edit
            </button>
          )}
        </div>
      )}
    </article>
  )
}

export function MessageView(props: Props) {
  const { message, stats, previous, note, interrupted, versions } = props
  if (message.role === 'user') return <UserMessage {...props} />
  const streaming = message.status === 'streaming'
  const stopped = message.status === 'stopped'
  const usage = message.turn?.usage
  const warnings = [...new Set(message.turn?.warnings ?? [])]
  return (
    <article
      className={`message assistant${previous === true ? ' previous' : ''}`}
      data-status={message.status}
      data-testid={previous === true ? 'previous-answer' : undefined}
    >
      <Speaker>
        {previous === true
          ? 'Previous answer, kept until the new one is complete'
          : interrupted !== undefined
            ? 'The model said (interrupted)'
            : stopped
              ? 'The model said (stopped)'
              : 'The model said'}
      </Speaker>
      {previous === true && (
        <p className="previous-note" aria-hidden="true">
          Previous answer · kept until the new one is complete
        </p>
      )}
      {message.thinking !== '' && (
        <ThinkingLane
          text={message.thinking}
          live={streaming && message.text === '' && message.toolCalls.length === 0}
          thoughtMs={stats?.thoughtMs}
        />
      )}
      {message.toolCalls.map((call) => (
        <div className="tool-call" key={call.id}>
          <code>
            {call.name}({JSON.stringify(call.input)})
          </code>
          {call.result !== undefined && (
            <code className="tool-result">→ {JSON.stringify(call.result.output)}</code>
          )}
        </div>
      ))}
      {(message.text !== '' || (streaming && message.thinking === '')) && (
        <div className={`answer${streaming ? ' streaming' : ''}`} data-testid="answer">
          <Markdown
            text={message.text}
            cut={streaming || stopped || message.turn?.stopReason === 'length'}
          />
        </div>
      )}
      {stopped && message.text === '' && message.toolCalls.length === 0 && (
        <p className="stopped-note" data-testid="stopped-note">
          Stopped before the answer started. Regenerate to ask again.
        </p>
      )}
      {interrupted !== undefined && (
        <p className="stopped-note" data-testid="cut-note">
          {interrupted}
        </p>
      )}
      {note !== undefined && (
        <p className="stopped-note" data-testid="kept-note">
          {note}
        </p>
      )}
      {!streaming && (
        <footer className="meta">
          {previous !== true && pagerOf(message, versions)}
          {stopped && <span className="badge">stopped</span>}
          {/* Figures for the eye; a screen reader reading the answer does not read them out. */}
          <span className="stats" data-testid="usage" aria-hidden="true">
            {stats?.ttftMs !== undefined && (
              <span
                data-testid="first-token"
                title="Time to first token: the relay's own work, then the model's (the rest is the network)"
              >
                first token {seconds(stats.ttftMs)}
                {stats.relayMs !== undefined &&
                  stats.modelMs !== undefined &&
                  ` (relay ${duration(stats.relayMs)} · model ${duration(stats.modelMs)})`}
              </span>
            )}
            {usage !== undefined && (usage.inputTokens > 0 || usage.outputTokens > 0) && (
              <span title="Tokens in / out">
                {format.format(usage.inputTokens)} in · {format.format(usage.outputTokens)} out
                {usage.reasoningTokens !== undefined &&
                  ` (${format.format(usage.reasoningTokens)} thinking)`}
              </span>
            )}
          </span>
        </footer>
      )}
      {warnings.length > 0 && (
        <details className="notes" data-testid="warnings">
          <summary>
            {warnings.length === 1 ? '1 note' : `${warnings.length} notes`} from the relay
          </summary>
          <ul>
            {warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </details>
      )}
    </article>
  )
}
