import { useEffect, useRef, useState, type KeyboardEvent } from 'react'

type Props = {
  /** The message as it is. */
  text: string
  onSave(text: string): void
  onCancel(): void
}

/**
 * A question edited in place (durable mode): its text in a box that takes the focus. Save (or
 * Enter) sends the new version, which the answer after it and every later message give way to;
 * Cancel (or Escape) leaves the question as it was.
 */
export function MessageEditor({ text, onSave, onCancel }: Props) {
  const [value, setValue] = useState(text)
  const input = useRef<HTMLTextAreaElement>(null)
  useEffect(() => {
    const box = input.current
    box?.focus()
    box?.setSelectionRange(box.value.length, box.value.length)
  }, [])
  const save = () => {
    const edited = value.trim()
    if (edited !== '') onSave(edited)
  }
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Escape') {
      // The editor's own: not the page's Escape, which stops an answer.
      event.preventDefault()
      event.stopPropagation()
      onCancel()
    } else if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      save()
    }
  }
  return (
    <form
      className="editor"
      onSubmit={(event) => {
        event.preventDefault()
        save()
      }}
    >
      <textarea
        ref={input}
        aria-label="Edit your message"
        data-testid="edit-input"
        rows={2}
        value={value}
        onChange={(event) => setValue(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="editor-actions">
        <button type="button" className="secondary" data-testid="cancel-edit" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" data-testid="save-edit" disabled={value.trim() === ''}>
          Save
        </button>
      </div>
    </form>
  )
}
