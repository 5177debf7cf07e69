import type { WireBranch } from '../../src/core/wire.ts'

type Props = {
  branch: WireBranch
  /** What has versions, for a screen reader: "Versions of this answer". */
  of: 'question' | 'answer'
  /** While an answer runs no version can be chosen: the buttons say so, and do nothing. */
  disabled: boolean
  onSelect(index: number): void
}

/**
 * "‹ 2 / 3 ›" under a message with other versions (a regenerated answer, an edited question, on a
 * durable conversation): Previous and Next show the version before or after, in every tab. A screen
 * reader hears "Version 2 of 3" (a live region says it again after a switch); at either end the
 * button says it is unavailable and keeps its focus.
 */
export function VersionPager({ branch, of, disabled, onSelect }: Props) {
  const { index, count } = branch
  const go = (to: number) => {
    if (!disabled && to >= 0 && to < count) onSelect(to)
  }
  return (
    <div className="pager" role="group" aria-label={`Versions of this ${of}`} data-testid="pager">
      <button
        type="button"
        className="secondary"
        aria-label="Previous version"
        aria-disabled={disabled || index === 0}
        data-testid="previous-version"
        onClick={() => go(index - 1)}
      >
        ‹
      </button>
      <span className="pager-label" aria-live="polite">
        <span aria-hidden="true">
          {index + 1} / {count}
        </span>
        <span className="sr-only" data-testid="version">
          Version {index + 1} of {count}
        </span>
      </span>
      <button
        type="button"
        className="secondary"
        aria-label="Next version"
        aria-disabled={disabled || index === count - 1}
        data-testid="next-version"
        onClick={() => go(index + 1)}
      >
        ›
      </button>
    </div>
  )
}
