/** A parsed JSON body, or why it was refused (413 too large, 415 not JSON, 400 unreadable). */
export type BodyResult =
  | { ok: true; value: unknown; bytes: number }
  | { ok: false; status: 400 | 413 | 415; message: string }

/**
 * Reads a JSON request body of at most `limit` bytes. A `content-length` over the limit is refused
 * before reading, and the bytes are counted as they stream in (the header may be absent or lie),
 * so no more than `limit` bytes are ever held. Past the limit, up to `limit` more bytes are read
 * and dropped (see {@link discardBody}) before the refusal.
 */
export async function readJsonBody(request: Request, limit: number): Promise<BodyResult> {
  const type = (request.headers.get('content-type') ?? '').split(';')
  if (type[0]!.trim().toLowerCase() !== 'application/json') {
    return { ok: false, status: 415, message: "content-type must be 'application/json'" }
  }
  const charset = type.slice(1).find((param) => param.trim().toLowerCase().startsWith('charset='))
  if (charset !== undefined && !/^\s*charset="?utf-8"?\s*$/i.test(charset)) {
    return { ok: false, status: 415, message: 'content-type charset must be utf-8' }
  }
  const tooLarge = {
    ok: false,
    status: 413,
    message: `body must be at most ${limit} bytes`,
  } as const
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  if (declared > limit) return tooLarge
  if (request.body === null) return { ok: false, status: 400, message: 'body is required' }

  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let bytes = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      bytes += value.byteLength
      if (bytes > limit) {
        await drain(reader, limit)
        return tooLarge
      }
      chunks.push(value)
    }
  } catch {
    return { ok: false, status: 400, message: 'body could not be read' }
  }

  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(join(chunks, bytes))
  } catch {
    return { ok: false, status: 400, message: 'body is not valid UTF-8' }
  }
  try {
    return { ok: true, value: JSON.parse(text), bytes }
  } catch (error) {
    const reason = error instanceof Error ? `: ${error.message.slice(0, 120)}` : ''
    return { ok: false, status: 400, message: `body is not valid JSON${reason}` }
  }
}

/**
 * Reads and drops what is left of a body that will not be used, up to `maxBytes`, then cancels
 * the rest. Answering before the body is read can make a server close the connection with unread
 * bytes, which the client sees as a reset instead of the answer; draining avoids that for any body
 * of a sane size without holding it in memory.
 */
export async function discardBody(request: Request, maxBytes: number): Promise<void> {
  if (request.body === null || request.bodyUsed) return
  try {
    await drain(request.body.getReader(), maxBytes)
  } catch {
    // Nothing to do: the client went away.
  }
}

async function drain(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBytes: number,
): Promise<void> {
  let bytes = 0
  try {
    while (bytes <= maxBytes) {
      const { done, value } = await reader.read()
      if (done) return
      bytes += value.byteLength
    }
    await reader.cancel()
  } catch {
    // The client went away; nothing is left to drain.
  }
}

function join(chunks: Uint8Array[], bytes: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(bytes)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}
