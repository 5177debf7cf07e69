import { useState } from 'react'

type Props = {
  /** A token was given and refused. */
  refused: boolean
  onToken(token: string): void
}

/**
 * Asks for the relay's bearer token when it answers 401 (a relay with `RELAY_TOKENS` set). The
 * token is kept in this browser's localStorage and sent as `authorization: Bearer …`.
 */
export function TokenForm({ refused, onToken }: Props) {
  const [value, setValue] = useState('')
  return (
    <form
      className="token"
      data-testid="token-form"
      onSubmit={(event) => {
        event.preventDefault()
        if (value.trim() !== '') onToken(value.trim())
      }}
    >
      <label>
        <span>
          {refused
            ? 'The relay refused this token. Enter another one:'
            : 'This relay needs an access token (one of its RELAY_TOKENS):'}
        </span>
        <input
          type="password"
          data-testid="token"
          autoComplete="off"
          value={value}
          onChange={(event) => setValue(event.target.value)}
        />
      </label>
      <button type="submit" disabled={value.trim() === ''}>
        Use token
      </button>
    </form>
  )
}
