import type { ChatMessage } from '../../src/react/index.ts'
import { Markdown } from './markdown.tsx'
import type { AnswerStats } from './storage.ts'
import { ThinkingLane } from './thinking-lane.tsx'
import { duration, seconds } from './timings.ts'

type Props = {
  message: ChatMessage
  stats: AnswerStats | undefined
  /** The answer a regenerate will replace, shown until the new one is complete. */
  previous?: boolean | undefined
  /** Says why this answer is still here (a regenerate of it stopped or failed). */
  note?: string | undefined
  /** Says that a restart of the relay cut this answer, and what became of it. */
  interrupted?: string | undefined
}

const format = new Intl.NumberFormat()

/** Says who spoke, to assistive technology only (the layout says it to the eye). */
function Speaker({ children }: { children: string }) {
  return <h2 className="sr-only">{children}</h2>
}

export function MessageView({ message, stats, previous, note, interrupted }: Props) {
  if (message.role === 'user') {
    return (
      <article className="message user" data-testid="user-message">
        <Speaker>You said</Speaker>
        <div className="bubble">{message.text}</div>
      </article>
    )
  }
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
