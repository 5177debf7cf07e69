import { useState } from 'react'

/** Why the token is asked for: none was given, the one given was refused, or it is being checked. */
export type TokenState = 'needed' | 'refused' | 'checking'

type Props = {
  state: TokenState
  onToken(token: string): void
}

const PROMPTS: Readonly<Record<TokenState, string>> = {
  needed: 'This relay needs an access token (one of its RELAY_TOKENS):',
  refused: 'The relay refused this token. Enter another one:',
  checking: 'Checking the token with the relay…',
}

/**
 * Asks for the relay's bearer token when it answers 401 (a relay with `RELAY_TOKENS` set). The
 * token is kept in this browser's localStorage and sent as `authorization: Bearer …`.
 */
export function TokenForm({ state, onToken }: Props) {
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
        <span>{PROMPTS[state]}</span>
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
