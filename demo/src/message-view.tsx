import type { ChatMessage } from '../../src/react/index.ts'
import type { AnswerStats } from './storage.ts'
import { ThinkingLane } from './thinking-lane.tsx'
import { seconds } from './timings.ts'

type Props = {
  message: ChatMessage
  stats: AnswerStats | undefined
  /** The newest answer: announced to screen readers as it arrives. */
  latest: boolean
}

const format = new Intl.NumberFormat()

export function MessageView({ message, stats, latest }: Props) {
  if (message.role === 'user') {
    return (
      <article className="message user" data-testid="user-message">
        <div className="bubble">{message.text}</div>
      </article>
    )
  }
  const streaming = message.status === 'streaming'
  const usage = message.turn?.usage
  return (
    <article className="message assistant" data-status={message.status}>
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
        <div
          className={`answer${streaming ? ' streaming' : ''}`}
          data-testid="answer"
          aria-live={latest ? 'polite' : undefined}
          aria-busy={latest ? streaming : undefined}
        >
          {message.text}
        </div>
      )}
      {!streaming && (
        <footer className="meta" data-testid="usage">
          {message.status === 'stopped' && <span className="badge">stopped</span>}
          {stats?.ttftMs !== undefined && (
            <span title="Time to first token">first token {seconds(stats.ttftMs)}</span>
          )}
          {usage !== undefined && (usage.inputTokens > 0 || usage.outputTokens > 0) && (
            <span title="Tokens in / out">
              {format.format(usage.inputTokens)} in · {format.format(usage.outputTokens)} out
              {usage.reasoningTokens !== undefined &&
                ` (${format.format(usage.reasoningTokens)} thinking)`}
            </span>
          )}
          {message.turn?.warnings?.map((warning) => (
            <span className="warning" key={warning}>
              {warning}
            </span>
          ))}
        </footer>
      )}
    </article>
  )
}
