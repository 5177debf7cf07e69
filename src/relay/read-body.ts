/**
 * A parsed JSON body (with its text, to pass on as it came), or why it was refused (408 too slow,
 * 413 too large, 415 not JSON, 400 unreadable).
 */
export type BodyResult =
  | { ok: true; value: unknown; text: string; bytes: number }
  | { ok: false; status: 400 | 408 | 413 | 415; message: string }

/**
 * How long an answer that needs no body, or refuses one, waits for the rest on its way: a second,
 * or the body's own deadline when that is shorter.
 */
const graceMs = (timeoutMs: number) => Math.min(1000, timeoutMs)

/**
 * How many times the size limit of a body the answer does not use is read and dropped, at most
 * (8 MiB under the default 1 MiB limit), so that its connection can carry the next request.
 */
export const DROP_LIMITS = 8

/**
 * Reads a JSON request body of at most `limit` bytes within `timeoutMs`. A `content-length` over
 * the limit is refused without holding any of it, and the bytes are counted as they stream in (the
 * header may be absent or lie): past the limit nothing more is held. Every refusal but a late body
 * drops the rest of the body as {@link discardBody} does, so a client can make the relay hold
 * neither more than `limit` bytes nor a handler for longer than `timeoutMs` (plus the short grace
 * of a refused body), and a refused body does not cost the client its connection.
 */
export async function readJsonBody(
  request: Request,
  limit: number,
  timeoutMs: number,
): Promise<BodyResult> {
  const refuse = async (status: 413 | 415, message: string): Promise<BodyResult> => {
    await discardBody(request, limit, timeoutMs)
    return { ok: false, status, message }
  }
  const type = (request.headers.get('content-type') ?? '').split(';')
  if (type[0]!.trim().toLowerCase() !== 'application/json') {
    return refuse(415, "content-type must be 'application/json'")
  }
  const charset = type.slice(1).find((param) => param.trim().toLowerCase().startsWith('charset='))
  if (charset !== undefined && !/^\s*charset="?utf-8"?\s*$/i.test(charset)) {
    return refuse(415, 'content-type charset must be utf-8')
  }
  const tooLarge = `body must be at most ${limit} bytes`
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  if (declared > limit) return refuse(413, tooLarge)
  if (request.body === null) return { ok: false, status: 400, message: 'body is required' }

  const reader = request.body.getReader()
  const stop = () => void reader.cancel().catch(() => {})
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs)
  })
  const chunks: Uint8Array[] = []
  let bytes = 0
  try {
    for (;;) {
      const step = await Promise.race([reader.read(), late])
      if (step === 'late') {
        stop()
        return { ok: false, status: 408, message: `body must arrive within ${timeoutMs} ms` }
      }
      if (step.done) break
      bytes += step.value.byteLength
      if (bytes > limit) {
        await drain(reader, bytes, DROP_LIMITS * limit, graceMs(timeoutMs))
        return { ok: false, status: 413, message: tooLarge }
      }
      chunks.push(step.value)
    }
  } catch {
    return { ok: false, status: 400, message: 'body could not be read' }
  } finally {
    clearTimeout(timer)
  }

  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(join(chunks, bytes))
  } catch {
    return { ok: false, status: 400, message: 'body is not valid UTF-8' }
  }
  try {
    return { ok: true, value: JSON.parse(text), text, bytes }
  } catch (error) {
    // The parser's message quotes the body: it goes to the client, never to the log.
    const reason = error instanceof Error ? `: ${error.message.slice(0, 120)}` : ''
    return { ok: false, status: 400, message: `body is not valid JSON${reason}` }
  }
}

/**
 * Reads a body the answer does not need (or refuses) to its end and drops it, for at most
 * {@link DROP_LIMITS} times `limit` bytes and the short grace of a body with this `timeoutMs`, then
 * cancels what is left. A body left partly read when the answer goes out costs its connection:
 * workerd closes it after the answer, so a client's next request on it fails (and `wrangler dev`'s
 * proxy, which keeps its own connections to the Worker, answers the next request of any client
 * with a 503 "Your worker restarted mid-request"). The grace lets a body already on its way
 * arrive, while a client that sends slowly or without end gets its answer once it is over. A
 * `content-length` over what would be read is not read at all: reading part of it would cost the
 * connection all the same.
 */
export async function discardBody(
  request: Request,
  limit: number,
  timeoutMs: number,
): Promise<void> {
  if (request.body === null || request.bodyUsed) return
  const most = DROP_LIMITS * limit
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  if (declared > most) return
  // A declared length is a bound of its own: a body that goes on past it is not read further.
  const bound = declared >= 0 ? declared : most
  await drain(request.body.getReader(), 0, bound, graceMs(timeoutMs))
}

/**
 * Reads and drops what `reader` still gives, `bytes` having been read already, until it ends or
 * more than `maxBytes` have been read in all, for at most `maxMs`; then cancels it.
 */
async function drain(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  bytes: number,
  maxBytes: number,
  maxMs: number,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), maxMs)
  })
  try {
    while (bytes <= maxBytes) {
      const step = await Promise.race([reader.read(), late])
      if (step === 'late' || step.done) break
      bytes += step.value.byteLength
    }
  } catch {
    // The client went away: nothing is left to read.
  } finally {
    clearTimeout(timer)
    void reader.cancel().catch(() => {})
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
