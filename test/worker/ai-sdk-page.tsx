/**
 * A page as an app writes it with the AI SDK: `useChat` from `@ai-sdk/react` on a
 * `DefaultChatTransport` pointed at the relay (its address, token and model in the page's query),
 * showing each message's reasoning and text, and the chat's status and error. Bundled for
 * Chromium by `ai-sdk.test.ts`.
 */
import { useChat } from '@ai-sdk/react'
import { DefaultChatTransport } from 'ai'
import { useState } from 'react'
import { createRoot } from 'react-dom/client'

const query = new URLSearchParams(location.search)
const transport = new DefaultChatTransport({
  api: `${query.get('relay')}/v1/ai-sdk/chat`,
  headers: { authorization: `Bearer ${query.get('token')}` },
  body: { model: query.get('model'), thinking: 'low' },
})

function App() {
  const { messages, sendMessage, status, error } = useChat({ transport })
  const [input, setInput] = useState('')
  return (
    <main>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void sendMessage({ text: input })
          setInput('')
        }}
      >
        <input data-testid="prompt" value={input} onChange={(e) => setInput(e.target.value)} />
      </form>
      <p data-testid="status">{status}</p>
      {error === undefined ? null : <p data-testid="error">{error.message}</p>}
      {messages.map((message) => (
        <article key={message.id} data-testid={message.role}>
          {message.parts.map((part, i) =>
            part.type === 'reasoning' ? (
              <details key={i} data-testid="reasoning" open>
                {part.text}
              </details>
            ) : part.type === 'text' ? (
              <p key={i} data-testid="text">
                {part.text}
              </p>
            ) : null,
          )}
        </article>
      ))}
    </main>
  )
}

createRoot(document.getElementById('root')!).render(<App />)
