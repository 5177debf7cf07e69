import { useEffect, useRef } from 'react'
import type { WireApproval } from '../../src/core/wire.ts'

/**
 * A server tool's call that waits for a person (durable mode): the tool, its input, and Approve /
 * Deny. It is shown in every tab on the conversation and after a reload (the relay keeps it); a
 * decision in any tab removes it from all. When it appears, focus moves to it, so a screen reader
 * reads it and Tab reaches its buttons.
 */
export function ApprovalCard({
  approval,
  onApprove,
  onDeny,
}: {
  approval: WireApproval
  onApprove(): void
  onDeny(): void
}) {
  const card = useRef<HTMLElement>(null)
  useEffect(() => card.current?.focus(), [approval.approvalId])
  const heading = `approval-${approval.callId}`
  return (
    <section
      ref={card}
      className="approval"
      aria-labelledby={heading}
      tabIndex={-1}
      data-testid="approval"
    >
      <h2 id={heading}>
        The model asks to run <code>{approval.name}</code>
      </h2>
      <pre data-testid="approval-input">{JSON.stringify(approval.input, null, 2)}</pre>
      <div className="approval-actions">
        <button type="button" data-testid="approve" onClick={onApprove}>
          Approve
        </button>
        <button type="button" className="secondary" data-testid="deny" onClick={onDeny}>
          Deny
        </button>
      </div>
    </section>
  )
}
