import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A delta a gated mock model is about to send (see `test/worker/fixtures/gate-pace.ts`). */
export type Step = {
  /** Which answer (model call) it belongs to. */
  call: string
  /** Its place in that answer, from 0. */
  index: number
  type: 'thinking' | 'text' | 'tool-call'
  /** The delta's text ('' for a tool call). */
  text: string
  /** The question being answered. */
  question: string
}

/** What the gate has let go of one answer so far. */
export type Sent = { thinking: string; text: string; steps: number }

/**
 * A gate on loopback that a gated mock model asks before each delta: while it holds, each
 * delta waits until the test lets it go, so a test sees an answer exactly as far as it allowed,
 * whatever the speed of the machine. It starts open (every delta goes at once).
 */
export type Gate = {
  /** Where the model asks (`MOCK_GATE_URL`). */
  readonly url: string
  /**
   * Every answer that starts from now on waits for the test before each delta (one already
   * streaming goes on).
   */
  hold(): void
  /** Lets every waiting delta go, and every later one at once (until the next `hold`). */
  open(): void
  /**
   * Lets deltas of the answer the model waits on go, one at a time, until `enough` holds of what
   * was sent of it (counting what went before), and resolves with that. Waits for the model to
   * ask first; fails (after {@link STEP_MS}) if the answer ends before `enough` holds.
   */
  sendUntil(enough: (sent: Sent) => boolean): Promise<Sent>
  /** What happened at the gate, for a failing test's report. */
  log(): string
  close(): Promise<void>
}

/** The longest a test waits for the model to ask for its next delta: a model that hung. */
const STEP_MS = 30_000

type Held = { step: Step; response: ServerResponse }

export async function startGate(): Promise<Gate> {
  let holding = false
  /** Answers that began while the gate was open: they go on unheld. */
  const free = new Set<string>()
  const held: Held[] = []
  const sentByCall = new Map<string, Sent>()
  const lines: string[] = []
  /** Who waits for a delta to arrive. */
  const arrivals = new Set<() => void>()

  const record = (what: string, { call, index, type, text, question }: Step) =>
    lines.push(
      `${what} ${call.slice(0, 8)} (${JSON.stringify(question.slice(0, 24))}) #${index} ${type} ${JSON.stringify(text)}`,
    )

  /** Lets the delta go; a free answer is told so, and asks no more. */
  const pass = ({ step, response }: Held): void => {
    const sent = sentByCall.get(step.call) ?? { thinking: '', text: '', steps: 0 }
    if (step.type === 'thinking') sent.thinking += step.text
    if (step.type === 'text') sent.text += step.text
    sent.steps++
    sentByCall.set(step.call, sent)
    const isFree = free.has(step.call)
    if (!isFree) record('sent', step)
    response.writeHead(204, isFree ? { 'x-gate': 'free' } : {}).end()
  }

  const arrive = (step: Step, response: ServerResponse) => {
    const entry = { step, response }
    if (!holding && !free.has(step.call)) {
      free.add(step.call)
      record('free', step)
    }
    if (free.has(step.call)) return void pass(entry)
    record('held', step)
    held.push(entry)
    // The model left (a stop, a client gone): this delta will never be sent.
    response.on('close', () => {
      const at = held.indexOf(entry)
      if (at >= 0 && !response.writableEnded) {
        held.splice(at, 1)
        record('dropped', step)
      }
    })
    for (const arrived of arrivals) arrived()
  }

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (body += chunk))
    request.on('end', () => arrive(JSON.parse(body) as Step, response))
  })
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))

  /** The first delta waiting (of `call`, when given), once there is one, within `STEP_MS`. */
  const first = async (call?: string): Promise<Held> => {
    const deadline = Date.now() + STEP_MS
    for (;;) {
      const found = held.find((entry) => call === undefined || entry.step.call === call)
      if (found !== undefined) return found
      const left = deadline - Date.now()
      if (left <= 0) {
        throw new Error(
          `the mock model asked for no next delta within ${STEP_MS} ms; at the gate:\n${gate.log()}`,
        )
      }
      await new Promise<void>((arrived) => {
        const done = () => {
          clearTimeout(timer)
          arrivals.delete(done)
          arrived()
        }
        const timer = setTimeout(done, left)
        arrivals.add(done)
      })
    }
  }

  /** Lets the first waiting delta of `call` go, once there is one. */
  const next = async (call: string): Promise<void> => {
    const entry = await first(call)
    held.splice(held.indexOf(entry), 1)
    pass(entry)
  }

  const sentOf = (call: string): Sent => ({
    ...(sentByCall.get(call) ?? { thinking: '', text: '', steps: 0 }),
  })

  const gate: Gate = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/step`,
    hold: () => void (holding = true),
    open() {
      holding = false
      for (const entry of held.splice(0)) pass(entry)
    },
    async sendUntil(enough) {
      // The answer the model waits on: what went before counts, later answers do not.
      const { call } = (await first()).step
      for (;;) {
        const sent = sentOf(call)
        if (enough(sent)) return sent
        await next(call)
      }
    },
    log: () => lines.slice(-40).join('\n') || '(nothing)',
    close() {
      gate.open()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      // The Worker's fetch keeps its connections open between deltas.
      server.closeAllConnections()
      return closed
    },
  }
  return gate
}
