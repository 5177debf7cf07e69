import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react'

/** Why the token is asked for: none was given, the one given was refused, or it is being checked. */
export type TokenState = 'needed' | 'refused' | 'checking'

type Props = {
  state: TokenState
  /** The relay's own words with its 401, shown under the prompt. */
  reason?: string | undefined
  onToken(token: string): void
}

const PROMPTS: Readonly<Record<TokenState, string>> = {
  needed: 'This relay needs an access token.',
  refused: 'The relay refused this token. Enter another one.',
  checking: 'Checking the token with the relay…',
}

/**
 * Asks for the relay's bearer token when it answers 401 (one of its `RELAY_TOKENS`, or an end-user
 * token), with the reason the relay gave (a closed relay says how to open it). The
 * token is kept in this browser's localStorage and sent as `authorization: Bearer …`. It takes
 * the focus when it appears, and says why it asks in an alert, which a screen reader reads at
 * once (and again when the relay refuses a token). Enter uses the token; Escape clears what was
 * typed (with nothing typed, it is the page's Escape: it stops an answer in flight).
 */
export function TokenForm({ state, reason, onToken }: Props) {
  const [value, setValue] = useState('')
  const input = useRef<HTMLInputElement>(null)
  const id = useId()
  useEffect(() => input.current?.focus(), [])

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Escape' || value === '') return
    event.stopPropagation()
    setValue('')
  }
  return (
    <form
      className="token"
      data-testid="token-form"
      aria-label="Relay access token"
      onSubmit={(event) => {
        event.preventDefault()
        if (value.trim() !== '') onToken(value.trim())
      }}
    >
      <p id={id} role="alert">
        {PROMPTS[state]}
        {reason !== undefined && state !== 'checking' && <> The relay says: {reason}.</>}
      </p>
      <label>
        <span>Access token</span>
        <input
          ref={input}
          type="password"
          data-testid="token"
          autoComplete="off"
          aria-describedby={id}
          value={value}
          onChange={(event) => setValue(event.target.value)}
          onKeyDown={onKeyDown}
        />
      </label>
      <button type="submit" disabled={value.trim() === ''}>
        Use token
      </button>
    </form>
  )
}
