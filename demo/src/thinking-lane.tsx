import { useEffect, useRef, useState } from 'react'
import { seconds } from './timings.ts'

type Props = {
  text: string
  /** Still thinking: the answer has not started. */
  live: boolean
  /** How long it thought, once known. */
  thoughtMs: number | undefined
}

/**
 * The model's visible reasoning: open and streaming while it thinks, collapsed to "Thought for
 * N s" once the answer starts, and expandable again with one click.
 */
export function ThinkingLane({ text, live, thoughtMs }: Props) {
  const [override, setOverride] = useState<boolean>()
  const open = override ?? live
  const body = useRef<HTMLDivElement>(null)

  // Keep the newest reasoning in view while it streams.
  useEffect(() => {
    if (live && open && body.current !== null) body.current.scrollTop = body.current.scrollHeight
  }, [text, live, open])

  const label = live
    ? 'Thinking…'
    : thoughtMs === undefined
      ? 'Thought'
      : `Thought for ${seconds(thoughtMs)}`
  return (
    <section className={`thinking${live ? ' live' : ''}`} data-testid="thinking" data-open={open}>
      <button
        type="button"
        className="thinking-toggle"
        aria-expanded={open}
        onClick={() => setOverride(!open)}
      >
        <span className="thinking-icon" aria-hidden="true" />
        <span>{label}</span>
        <span className="chevron" aria-hidden="true" />
      </button>
      {open && (
        <div className="thinking-text" ref={body}>
          {text}
        </div>
      )}
    </section>
  )
}
