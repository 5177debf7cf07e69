// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { TokenForm } from '../../demo/src/token-form.tsx'
import { TransportLabel } from '../../demo/src/transport-label.tsx'

afterEach(() => {
  cleanup()
  history.replaceState(null, '', '/')
})

describe('the token form', () => {
  it('takes the focus when it appears, is labelled, and says why in an alert', () => {
    render(<TokenForm state="needed" onToken={() => {}} />)
    const input = screen.getByLabelText('Access token')
    expect(document.activeElement).toBe(input)
    expect(screen.getByRole('alert').textContent).toContain('needs an access token')
    expect(input.getAttribute('aria-describedby')).toBe(screen.getByRole('alert').id)
    expect(screen.getByRole('form', { name: 'Relay access token' })).toBe(
      screen.getByTestId('token-form'),
    )
  })

  it("shows the relay's own reason, so a closed relay says how to open it", () => {
    const reason = 'this relay admits no one until RELAY_TOKENS is set'
    render(<TokenForm state="needed" reason={reason} onToken={() => {}} />)
    expect(screen.getByRole('alert').textContent).toBe(
      `This relay needs an access token. The relay says: ${reason}.`,
    )
  })

  it('uses the token on Enter, and Escape clears what was typed without leaving the form', () => {
    const onToken = vi.fn()
    const escapes = vi.fn()
    window.addEventListener('keydown', escapes)
    render(<TokenForm state="refused" onToken={onToken} />)
    const input = screen.getByLabelText<HTMLInputElement>('Access token')
    fireEvent.change(input, { target: { value: 'typed-by-mistake' } })
    fireEvent.keyDown(input, { key: 'Escape' })
    expect(input.value).toBe('')
    expect(document.activeElement).toBe(input)
    // Handled here: the page's Escape (which stops an answer) did not hear it.
    expect(escapes).not.toHaveBeenCalled()
    fireEvent.change(input, { target: { value: ' the-token ' } })
    fireEvent.submit(input)
    expect(onToken).toHaveBeenCalledWith('the-token')
    window.removeEventListener('keydown', escapes)
  })
})

describe('the transport label', () => {
  it('names the durable conversation and links to the stateless mode, leaving the conversation', () => {
    history.replaceState(null, '', '/?c=abc')
    render(<TransportLabel stateless={false} />)
    expect(screen.getByTestId('transport').textContent).toBe(
      'Transport: Durable conversationSwitch to stateless',
    )
    const link = screen.getByRole('link', { name: 'Switch to stateless' })
    expect(link.getAttribute('href')).toBe('/?transport=stateless')
  })

  it('names the stateless mode and links back to a durable conversation', () => {
    history.replaceState(null, '', '/?transport=stateless')
    render(<TransportLabel stateless />)
    expect(screen.getByText('Stateless')).toBeDefined()
    expect(screen.getByRole('link', { name: 'Switch to durable' }).getAttribute('href')).toBe('/')
  })
})
