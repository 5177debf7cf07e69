/**
 * A loopback provider for the load runs: an OpenAI-compatible `/v1/chat/completions` that streams
 * an echo of the question in small chunks, a few milliseconds apart, and counts its open
 * connections. The Worker reaches it over real HTTP, so "no upstream call outlives its client" is
 * measured where it matters: on the provider's side of the wire.
 */
import { createServer, type Server } from 'node:http'

/** The chunks of the answer to `question`, as the server streams them (SSE `data:` lines). */
export function upstreamChunks(question: string): string[] {
  const answer = `Écho : ${question} `.repeat(2)
  const pieces: string[] = []
  for (let i = 0; i < answer.length; i += 6) pieces.push(answer.slice(i, i + 6))
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-load', object: 'chat.completion.chunk', created: 1767225600, model: 'steady', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  return [
    ...pieces.map((piece, i) =>
      chunk(i === 0 ? { role: 'assistant', content: piece } : { content: piece }, null),
    ),
    chunk({}, 'stop'),
    `data: ${JSON.stringify({ id: 'chatcmpl-load', object: 'chat.completion.chunk', created: 1767225600, model: 'steady', choices: [], usage: { prompt_tokens: question.length, completion_tokens: pieces.length, total_tokens: question.length + pieces.length } })}\n\n`,
    'data: [DONE]\n\n',
  ]
}

/** The last user message of a Chat Completions request body. */
export function questionOf(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? []
  const last = messages.findLast((message) => message.role === 'user')
  return typeof last?.content === 'string' ? last.content : ''
}

/** A running loopback provider. */
export type Upstream = {
  /** Base URL for an OpenAI-compatible adapter. */
  baseURL: string
  /** Connections still open. */
  open(): number
  /** Requests served so far. */
  total(): number
  close(): Promise<void>
}

/** Starts the provider on 127.0.0.1, streaming one chunk every `delayMs`. */
export async function startUpstream(delayMs = 3): Promise<Upstream> {
  let open = 0
  let total = 0
  const server: Server = createServer((request, response) => {
    open++
    total++
    let closed = false
    response.on('close', () => {
      closed = true
      open--
    })
    const parts: Buffer[] = []
    request.on('data', (part: Buffer) => parts.push(part))
    request.on('end', () => {
      const chunks = upstreamChunks(questionOf(JSON.parse(Buffer.concat(parts).toString('utf8'))))
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      let i = 0
      const next = () => {
        if (closed) return
        const chunk = chunks[i++]
        if (chunk === undefined) {
          response.end()
          return
        }
        response.write(chunk)
        setTimeout(next, delayMs)
      }
      next()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    open: () => open,
    total: () => total,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
