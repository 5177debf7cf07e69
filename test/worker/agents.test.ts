/**
 * Agents on the relay (DESIGN §13) over real HTTP against the Worker in workerd: a durable
 * conversation's loop runs the Worker's server tools (worker/tools.ts) in its Durable Object, asks
 * for approvals and goes on when they are decided, with the offline mock model calling the tools.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AssistantTurn, Turn } from '../../src/core/conversation.ts'
import type { WireApproval, WirePending, WireToolResult } from '../../src/core/wire.ts'
import { dataOf, readSse, readUntil, runs } from '../relay/sse-reader.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

const ALICE = 'token-alice-0123456789'
const BOB = 'token-bob-9876543210ab'
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

let worker: TestWorker

beforeAll(async () => {
  worker = await startTestWorker({
    RELAY_TOKENS: `${ALICE},${BOB}`,
    MOCK_MODELS: 'on',
    MOCK_DELAY_MS: '0',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
    TOOL_APPROVAL_HOURS: '2',
  })
})

afterAll(async () => {
  await worker?.dispose()
})

function call(path: string, body?: unknown, token = ALICE) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  return worker.fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    body: body === undefined ? null : JSON.stringify(body),
  })
}

async function create(token = ALICE): Promise<string> {
  const response = await call('/v1/conversations', {}, token)
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

const ask = (id: string, content: string, serverTools: string[]) =>
  call(`/v1/conversations/${id}/messages`, {
    model: 'mock/echo',
    turn: { role: 'user', content },
    serverTools,
  })

const decide = (id: string, approvalId: string, body: unknown, token = ALICE) =>
  call(`/v1/conversations/${id}/approvals/${approvalId}`, body, token)

type Shown = { conversation: { turns: Turn[] }; streaming: boolean; pending?: WirePending }

async function shown(id: string): Promise<Shown> {
  const response = await call(`/v1/conversations/${id}`)
  expect(response.status).toBe(200)
  return (await response.json()) as Shown
}

/** The conversation once its loop no longer runs (it goes on by itself after a decision). */
async function idle(id: string): Promise<Shown> {
  await expect.poll(async () => (await shown(id)).streaming, { timeout: 15_000 }).toBe(false)
  return shown(id)
}

/** A conversation whose loop waits on the approval of a `save_note` of `text`. */
async function waitingNote(text: string) {
  const id = await create()
  const read = await readSse(await ask(id, `save_note ${text}`, ['save_note']))
  const [approval] = dataOf<WireApproval>(read, 'tool-approval')
  return { id, read, approval: approval! }
}

/** Conversations the relay stored before tool loops: see the fixture's note. */
const STORED = JSON.parse(
  readFileSync(
    join(import.meta.dirname, '../relay/conversations/fixtures/stored-before-loops.json'),
    'utf8',
  ),
) as { owner: string; waiting: StoredTable[] }
type StoredTable = { name: string; sql: string; rows: Record<string, unknown>[] }

describe('server tools in a durable conversation, in workerd', () => {
  it('runs clock in the object and answers with its time, in one stream', async () => {
    const id = await create()
    const read = await readSse(await ask(id, 'What does the clock say?', ['clock']))
    expect(runs(read)).toEqual([
      'turn',
      'thinking',
      'tool-call',
      'tool-result',
      'done',
      'turn',
      'thinking',
      'text',
      'done',
    ])
    const [result] = dataOf<WireToolResult>(read, 'tool-result')
    expect(result).toMatchObject({ name: 'clock', isError: false })
    expect(result!.output).toMatch(ISO)
    const answer = dataOf<{ turn: AssistantTurn }>(read, 'done').at(-1)!.turn
    expect(answer.text).toBe(`The clock tool returned "${String(result!.output)}".`)
    const view = await shown(id)
    expect(view.conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
  })

  it('refuses a server tool the Worker does not have, naming it', async () => {
    const id = await create()
    const refused = await ask(id, 'Hi', ['clock', 'shell'])
    expect(refused.status).toBe(400)
    const { error } = (await refused.json()) as { error: { field: string; message: string } }
    expect(error.field).toBe('serverTools[1]')
    expect(error.message).toMatch(
      /'shell' is not a server tool of this relay \(it has: clock, save_note\)/,
    )
  })

  it('asks to approve save_note, lists it, and saves the note once approved, with no browser attached', async () => {
    const asked = Date.now()
    const { id, read, approval } = await waitingNote('call the plumber')
    expect(runs(read)).toEqual(['turn', 'thinking', 'tool-call', 'tool-approval', 'done'])
    // It waits TOOL_APPROVAL_HOURS (2 here, 24 by default).
    const expires = Date.parse(approval.expiresAt) - 2 * 60 * 60 * 1000
    expect(expires).toBeGreaterThanOrEqual(asked - 1000)
    expect(expires).toBeLessThanOrEqual(Date.now() + 1000)
    expect(dataOf<{ turn: AssistantTurn }>(read, 'done')[0]!.turn.stopReason).toBe('tool-calls')
    expect(approval).toMatchObject({ name: 'save_note', input: { text: 'call the plumber' } })
    const waiting = await shown(id)
    expect(waiting.streaming).toBe(false)
    expect(waiting.pending).toEqual({ approvals: [approval], calls: [], results: [] })
    // A message meanwhile waits its turn (its queue is cleared here); a regenerate is told why.
    const meanwhile = await ask(id, 'And?', [])
    expect(meanwhile.status).toBe(202)
    const cleared = await worker.fetch(`/v1/conversations/${id}/queue`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ALICE}` },
    })
    expect(cleared.status).toBe(204)
    const regenerate = await call(`/v1/conversations/${id}/regenerate`, { model: 'mock/echo' })
    expect(regenerate.status).toBe(409)
    expect(await regenerate.text()).toMatch(/an approval of save_note/)

    const follower = await call(`/v1/conversations/${id}/stream?follow=true`)
    const decided = await decide(id, approval.approvalId, { approve: true })
    expect(decided.status).toBe(202)
    const done = await idle(id)
    expect(done.conversation.turns[2]).toEqual({
      role: 'tool',
      results: [{ callId: approval.callId, name: 'save_note', output: 'saved: call the plumber' }],
    })
    expect(done.conversation.turns[3]).toMatchObject({
      text: 'The save_note tool returned "saved: call the plumber".',
    })
    expect(done).not.toHaveProperty('pending')
    const followed = await readUntil(follower, (seen) => seen.events.at(-1)?.event === 'done')
    expect(runs(followed)).toEqual(['tool-result', 'turn', 'thinking', 'text', 'done'])
    await follower.body!.cancel()
    expect((await decide(id, approval.approvalId, { approve: true })).status).toBe(409)
  })

  it('sends a denial with its reason, and keeps it over a later approval', async () => {
    const { id, approval } = await waitingNote('buy milk')
    expect(
      (await decide(id, approval.approvalId, { approve: false, reason: 'later' })).status,
    ).toBe(202)
    expect((await decide(id, approval.approvalId, { approve: true })).status).toBe(409)
    const done = await idle(id)
    expect(done.conversation.turns[2]).toMatchObject({
      results: [{ output: 'Not run: the user denied this call: later', isError: true }],
    })
  })

  it('answers 404 to a forged approval and to another client, and takes one of two racing decisions', async () => {
    const { id, approval } = await waitingNote('water the plants')
    const forged = `${approval.approvalId.slice(0, 40)}${approval.approvalId.endsWith('xyz') ? 'abc' : 'xyz'}`
    expect((await decide(id, forged, { approve: true })).status).toBe(404)
    expect((await decide(id, approval.approvalId, { approve: true }, BOB)).status).toBe(404)
    const bad = await decide(id, approval.approvalId, { approve: true, extra: 1 })
    expect(bad.status).toBe(400)
    const statuses = await Promise.all([
      decide(id, approval.approvalId, { approve: true }),
      decide(id, approval.approvalId, { approve: false }),
    ]).then((answers) => answers.map((a) => a.status))
    expect(statuses.toSorted()).toEqual([202, 409])
    const done = await idle(id)
    expect(done.conversation.turns.filter((t) => t.role === 'tool')).toHaveLength(1)
  })

  it('awaits the client’s call beside a server tool, and says the tools’ time in the answer to its results', async () => {
    const id = await create()
    const lookup = { name: 'lookup', parameters: { type: 'object' } }
    const body = { serverTools: ['clock'], tools: [lookup] }
    const asked = await readSse(
      await call(`/v1/conversations/${id}/messages`, {
        ...body,
        model: 'test/mixed',
        turn: { role: 'user', content: 'Both' },
      }),
    )
    expect(runs(asked)).toEqual(['turn', 'tool-call', 'tool-result', 'done'])
    expect((await shown(id)).pending).toEqual({
      approvals: [],
      calls: [{ id: 'c2', name: 'lookup', input: { city: 'Paris' } }],
      results: dataOf<WireToolResult>(asked, 'tool-result'),
    })
    const answered = await call(`/v1/conversations/${id}/messages`, {
      ...body,
      model: 'mock/echo',
      turn: { role: 'tool', results: [{ callId: 'c2', name: 'lookup', output: 'sunny' }] },
    })
    // The relay's own checks, then the time the clock ran in the object.
    expect(answered.headers.get('server-timing')).toMatch(
      /^relay;dur=\d+\.\d;desc="checks", tools;dur=\d+\.\d;desc="server tools"$/,
    )
    const read = await readSse(answered)
    const tools = dataOf<{ turn: Turn }>(read, 'turn')[0]!.turn
    expect(tools).toMatchObject({ role: 'tool', results: [{ callId: 'c1' }, { callId: 'c2' }] })
    expect((await idle(id)).conversation.turns).toHaveLength(4)
  })

  it('goes on with a conversation stored before tool loops: its client call, then a loop', async () => {
    // Alice's client id, as her own conversation's object stores it.
    const mine = await create()
    const dumped = (await (
      await worker.fetch(`/v1/__test/conversation?id=${mine}&dump=1`)
    ).json()) as StoredTable[]
    const meta = JSON.parse(String(dumped.find((t) => t.name === 'meta')!.rows[0]!['json'])) as {
      owner: string
    }
    const id = 'StoredBeforeLoops00001'
    const tables = JSON.parse(
      JSON.stringify(STORED.waiting).replaceAll(STORED.owner, meta.owner),
    ) as StoredTable[]
    const loaded = await worker.fetch(`/v1/__test/conversation?id=${id}&load=1`, {
      method: 'POST',
      body: JSON.stringify(tables),
    })
    expect(loaded.status).toBe(204)
    expect((await shown(id)).conversation.turns).toHaveLength(4)
    const answered = await readSse(
      await call(`/v1/conversations/${id}/messages`, {
        model: 'mock/echo',
        turn: { role: 'tool', results: [{ callId: 'call_1', name: 'lookup', output: 'sunny' }] },
      }),
    )
    expect(answered.events.at(-1)!.event).toBe('done')
    const looped = await readSse(await ask(id, 'What does the clock say?', ['clock']))
    expect(runs(looped)).toContain('tool-result')
    const view = await idle(id)
    expect(view.conversation.turns.map((t) => t.role).slice(4)).toEqual([
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
  })

  it('lets stop, from any client of the owner, answer the waiting call as stopped', async () => {
    const { id, approval } = await waitingNote('paint the door')
    const stop = await worker.fetch(`/v1/conversations/${id}/stop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ALICE}` },
    })
    expect(stop.status).toBe(204)
    const view = await shown(id)
    expect(view.conversation.turns[2]).toMatchObject({
      results: [{ callId: approval.callId, isError: true }],
    })
    expect((await decide(id, approval.approvalId, { approve: true })).status).toBe(409)
    expect((await ask(id, 'Next', [])).status).toBe(200)
  })
})
