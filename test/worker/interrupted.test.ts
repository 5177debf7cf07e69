/**
 * Answers cut by a restart (DESIGN §13) in workerd: each test kills the runtime (SIGKILL, see
 * `startTestWorker`'s `persist`) in the middle of an answer or of a server tool, starts it again on
 * the same storage, and reads what the conversation's object made of it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AssistantTurn, Turn } from '../../src/core/conversation.ts'
import type { WireApproval, WireToolResult } from '../../src/core/wire.ts'
import { dataOf, readSse, readUntil, runs, type ReadSse } from '../relay/sse-reader.ts'
import { startGate, type Gate } from '../helpers/gate.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

const TOKEN = 'token-alice-0123456789'
const PACED_TEXT = 'One line of a paced answer.\n'.repeat(14)
/** The `test/large` model's answer: about 5 MB in 1,280 events of 4,096 characters. */
const LARGE_TEXT = Array.from({ length: 200_000 }, (_, i) => `line ${i} of a large answer\n`)
  .join('')
  .slice(0, 5 * 1024 * 1024)

/** A server the `probe` tool asks: it counts each run and never answers (the tool hangs). */
const probe = { url: '', runs: 0, held: [] as ServerResponse[] }
const server = createServer((_request, response) => {
  probe.runs++
  probe.held.push(response)
})

/** What paces the `gated/paced` model: its deltas go when a test lets them. */
let gate: Gate
/** The one runtime every test kills and starts again (each on a conversation of its own). */
let on: Runtime

beforeAll(async () => {
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  probe.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/probe`
  gate = await startGate()
  on = await runtime()
})

afterAll(async () => {
  await on?.close()
  await gate?.close()
  for (const response of probe.held) response.destroy()
  await new Promise((closed) => server.close(closed))
})

/** A Worker on a storage folder of its own, and how to kill it and start another on it. */
async function runtime() {
  const folder = mkdtempSync(join(tmpdir(), 'thinkwire-interrupted-'))
  const vars = {
    RELAY_TOKENS: TOKEN,
    MOCK_MODELS: 'on',
    MOCK_DELAY_MS: '0',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
    RATE_LIMIT_TOKENS_PER_MINUTE: '0',
    TOOL_PROBE_URL: probe.url,
    MOCK_GATE_URL: gate.url,
  }
  const start = () => startTestWorker(vars, undefined, { persist: join(folder, 'state') })
  let worker: TestWorker = await start()
  const call = (path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}`, ...init.headers }
    if (init.body !== undefined) headers['content-type'] = 'application/json'
    return worker.fetch(path, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers,
      body: init.body === undefined ? null : JSON.stringify(init.body),
    })
  }
  return {
    call,
    /** Kills workerd, as a crash or a deploy does, and starts it again on the same storage. */
    async restart() {
      await worker.dispose()
      worker = await start()
    },
    async close() {
      await worker.dispose()
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

type Runtime = Awaited<ReturnType<typeof runtime>>

async function conversation(): Promise<string> {
  const response = await on.call('/v1/conversations', { body: {} })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

const send = (id: string, body: unknown) => on.call(`/v1/conversations/${id}/messages`, { body })

const resume = (id: string, after: string) =>
  on.call(`/v1/conversations/${id}/stream`, { headers: { 'last-event-id': after } })

async function shown(id: string) {
  const response = await on.call(`/v1/conversations/${id}`)
  return (await response.json()) as {
    conversation: { turns: Turn[] }
    streaming: boolean
    lastError?: unknown
  }
}

async function idle(id: string) {
  await expect.poll(async () => (await shown(id)).streaming, { timeout: 30_000 }).toBe(false)
  return shown(id)
}

const textOf = (read: ReadSse) =>
  dataOf<{ text: string }>(read, 'text')
    .map((d) => d.text)
    .join('')

describe('answers cut by killing workerd', () => {
  it('runs an answer none of whose events was stored again, once, and every resumed stream gets it', async () => {
    const id = await conversation()
    // The gate holds the answer after four deltas, and lets its run after the restart go at once.
    gate.hold()
    const running = await send(id, {
      model: 'gated/paced',
      turn: { role: 'user', content: 'Go' },
    })
    await gate.sendUntil((sent) => sent.steps >= 4)
    const seen = await readUntil(running, (read) => read.events.length >= 5)
    await on.restart()
    gate.open()
    const read = await readSse(await resume(id, seen.events.at(-1)!.id!))
    expect(runs(read)).toEqual(['turn', 'interrupted', 'thinking', 'text', 'done'])
    expect(dataOf(read, 'interrupted')).toEqual([{ retried: true }])
    expect(Number(read.events[0]!.id)).toBeGreaterThan(Number(seen.events.at(-1)!.id))
    expect(textOf(read)).toBe(PACED_TEXT)
    const view = await idle(id)
    expect(view).not.toHaveProperty('lastError')
    expect(view.conversation.turns.map((t) => t.role)).toEqual(['user', 'assistant'])
  })

  it('numbers on from an answer that ended after a restart, and resets a resume into it', async () => {
    const id = await conversation()
    const ask = { model: 'test/short', turn: { role: 'user', content: 'Go' } }
    const first = await readSse(await send(id, ask))
    const last = Number(first.events.at(-1)!.id)
    await on.restart()
    // Its last events were held, not stored: a resume into it gets the conversation as it is.
    const read = await readSse(await resume(id, String(last - 1)))
    expect(read.events.map((event) => [event.event, event.id])).toEqual([['reset', String(last)]])
    const reset = JSON.parse(read.events[0]!.data) as { conversation: { turns: Turn[] } }
    expect(reset.conversation.turns).toEqual((await shown(id)).conversation.turns)
    // No id is given twice: the next answer's `turn` follows the last event a client saw.
    const second = await readSse(await send(id, ask))
    expect(second.events[0]).toMatchObject({ event: 'turn', id: String(last + 1) })
  })

  it('keeps what was stored of an answer that streamed as a stopped turn', async () => {
    const id = await conversation()
    const running = await send(id, {
      model: 'test/large',
      turn: { role: 'user', content: 'Go' },
    })
    // Past a 128 KiB batch of the log, written as it fills.
    const seen = await readUntil(running, (read) => read.events.length >= 60)
    await on.restart()
    const read = await readSse(await resume(id, seen.events.at(-1)!.id!))
    // The stored events the client had not read when the runtime died (the log writes a batch
    // as it fills, whatever its readers have taken), if any, then the answer's end.
    const names = runs(read)
    expect(names.slice(-2)).toEqual(['interrupted', 'done'])
    expect(names.slice(0, -2).every((name) => name === 'text')).toBe(true)
    expect(dataOf(read, 'interrupted')).toEqual([{ retried: false }])
    const stopped = dataOf<{ turn: AssistantTurn }>(read, 'done')[0]!.turn
    expect(stopped.stopReason).toBe('aborted')
    // What was stored: from the start, a part of what the client saw, resumed stream included.
    expect(stopped.text.length).toBeGreaterThan(0)
    expect((textOf(seen) + textOf(read)).startsWith(stopped.text)).toBe(true)
    if (names.length > 2) expect(stopped.text).toBe(textOf(seen) + textOf(read))
    expect(LARGE_TEXT.startsWith(stopped.text)).toBe(true)
    const view = await shown(id)
    expect(view.streaming).toBe(false)
    expect(view.conversation.turns[1]).toEqual(stopped)
  })

  it('answers a server tool that ran as interrupted, never runs it twice, and the loop goes on', async () => {
    const id = await conversation()
    const before = probe.runs
    const running = await send(id, {
      model: 'mock/echo',
      turn: { role: 'user', content: 'Run probe now' },
      serverTools: ['probe'],
    })
    const seen = await readUntil(running, (read) =>
      read.events.some((e) => e.event === 'tool-call'),
    )
    await expect.poll(() => probe.runs).toBe(before + 1)
    await on.restart()
    const read = await readSse(await resume(id, seen.events.at(-1)!.id!))
    expect(runs(read)).toEqual(['tool-result', 'done', 'turn', 'thinking', 'text', 'done'])
    const [result] = dataOf<WireToolResult>(read, 'tool-result')
    expect(result).toMatchObject({ name: 'probe', isError: true })
    expect(String(result!.output)).toMatch(/^Interrupted: the relay restarted while the tool ran/)
    const view = await idle(id)
    expect(view.conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(probe.runs).toBe(before + 1)
  })

  it('keeps an approval that waits across the restart, and goes on once it is decided', async () => {
    const id = await conversation()
    const asked = await readSse(
      await send(id, {
        model: 'mock/echo',
        turn: { role: 'user', content: 'save_note after the deploy' },
        serverTools: ['save_note'],
      }),
    )
    const [approval] = dataOf<WireApproval>(asked, 'tool-approval')
    await on.restart()
    const decided = await on.call(`/v1/conversations/${id}/approvals/${approval!.approvalId}`, {
      body: { approve: true },
    })
    expect(decided.status).toBe(202)
    const view = await idle(id)
    expect(view.conversation.turns[2]).toMatchObject({
      results: [{ output: 'saved: after the deploy' }],
    })
  })
})
