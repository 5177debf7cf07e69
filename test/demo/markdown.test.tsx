// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { closeMarks } from '../../demo/src/close-marks.ts'
import { Markdown } from '../../demo/src/markdown.tsx'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

/** The rendered text of markdown cut off at `text`, and its markup. */
function shown(text: string) {
  const { container } = render(<Markdown text={text} cut />)
  const html = container.innerHTML
  const visible = container.querySelector('.markdown')?.textContent ?? ''
  cleanup()
  return { html, text: visible }
}

describe('an answer cut off mid-way renders without raw marks', () => {
  it.each([
    ['an open **', 'Here is **the bold part', '<strong>the bold part</strong>'],
    ['a ** with half its closing', '1. **Thinking*', '<strong>Thinking</strong>'],
    ['an open *', 'It folds to *Thought for', '<em>Thought for</em>'],
    ['an open code span', 'Press `Esc', '<code>Esc</code>'],
    ['emphasis around an open code span', 'Run **`npm st', '<strong><code>npm st</code></strong>'],
    [
      'an open fence',
      'Code:\n\n```ts\nconst a = 1',
      '<code class="language-ts">const a = 1\n</code>',
    ],
  ])('closes %s', (_, text, markup) => {
    const { html, text: visible } = shown(text)
    expect(html).toContain(markup)
    expect(visible).not.toMatch(/\*|`/)
  })

  it('leaves out a mark with nothing after it yet', () => {
    expect(closeMarks('The next word is **')).toBe('The next word is ')
    expect(closeMarks('Press `')).toBe('Press ')
    expect(closeMarks('Some **bold `')).toBe('Some **bold**')
  })

  it('closes only the last line, and leaves alone what is no mark', () => {
    expect(closeMarks('* one\n* two and 3 * 4')).toBe('* one\n* two and 3 * 4')
    expect(closeMarks('snake*case and \\*literal')).toBe('snake*case and \\*literal')
    expect(closeMarks('**done** and `code` and *it*')).toBe('**done** and `code` and *it*')
    expect(closeMarks('``a ` b')).toBe('``a ` b``')
  })

  it('renders a complete answer as written', () => {
    const { container } = render(<Markdown text="A **bold" />)
    expect(container.textContent).toContain('A **bold')
  })
})

// happy-dom hands DOMPurify a document whose first node it then unwraps (Chromium does not; the
// e2e tests render there): here each code block comes after a line of text in its block.
describe('code blocks', () => {
  it('have a Copy button that copies the code, is a keyboard button, and announces "Copied"', async () => {
    const writeText = vi.fn(async (_text: string) => {})
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } })
    render(<Markdown text={'Try:\n```ts\nconst a = 1\n```\n\nDone.'} />)
    const button = screen.getByRole('button', { name: 'Copy' })
    expect(button.tagName).toBe('BUTTON')
    expect(button.getAttribute('type')).toBe('button')
    await act(async () => {
      fireEvent.click(button)
    })
    expect(writeText).toHaveBeenCalledWith('const a = 1\n')
    expect(screen.getByRole('status').textContent).toBe('Copied')
    expect(button.textContent).toBe('Copied')
  })

  it('says so when the page has no clipboard', async () => {
    vi.stubGlobal('navigator', { ...navigator, clipboard: undefined })
    render(<Markdown text={'Try:\n```\nx\n```'} />)
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Copy' }))
    })
    expect(screen.getByRole('status').textContent).toBe('Copy failed')
  })
})
