/**
 * Branches, the queue, titles, export and delete-all of durable conversations (DESIGN §14), over
 * real HTTP against the Worker in workerd: one Worker for the file, its `gated/paced` model paced by
 * the test's gate.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../src/core/conversation.ts'
import type {
  WireBranch,
  WireConversationExport,
  WireConversationRead,
} from '../../src/core/wire.ts'
import { startGate, type Gate } from '../helpers/gate.ts'
import { dataOf, readSse, readUntil, runs } from '../relay/sse-reader.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

const ALICE = 'token-alice-0123456789'
const BOB = 'token-bob-9876543210ab'
const CAROL = 'token-carol-5555555555'

/** A conversation as the relay stored it before branches (a flat list of turns). */
const STORED = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures/stored-2026-12.json'), 'utf8'),
) as { id: string; conversation: unknown[]; index: unknown[] }

let worker: TestWorker
let gate: Gate

beforeAll(async () => {
  gate = await startGate()
  worker = await startTestWorker({
    RELAY_TOKENS: `${ALICE},${BOB},${CAROL}`,
    MOCK_MODELS: 'on',
    MOCK_DELAY_MS: '0',
    HEARTBEAT_MS: '1000',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
    RATE_LIMIT_TOKENS_PER_MINUTE: '0',
    MOCK_GATE_URL: gate.url,
  })
})

afterAll(async () => {
  await worker?.dispose()
  await gate?.close()
})

function call(path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${init.token ?? ALICE}` }
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  return worker.fetch(path, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? null : JSON.stringify(init.body),
  })
}

async function create(token = ALICE): Promise<string> {
  const response = await call('/v1/conversations', { body: {}, token })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

const user = (content: string) => ({ role: 'user' as const, content })
const ask = (content: string, model = 'mock/echo') => ({ model, turn: user(content) })
const send = (id: string, body: unknown, token = ALICE) =>
  call(`/v1/conversations/${id}/messages`, { body, token })

async function get(id: string, token = ALICE): Promise<WireConversationRead> {
  const response = await call(`/v1/conversations/${id}`, { token })
  expect(response.status).toBe(200)
  return (await response.json()) as WireConversationRead
}

/** The conversation once nothing runs and nothing is queued (polled, with a deadline). */
async function idle(id: string): Promise<WireConversationRead> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const shown = await get(id)
    if (!shown.streaming && shown.queue === undefined) return shown
    if (Date.now() > deadline) throw new Error('the conversation did not settle within 20 s')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Each turn as its text: a user turn's content, an answer's text. */
const texts = (shown: WireConversationRead) =>
  shown.conversation.turns.map((turn) =>
    turn.role === 'user' ? turn.content : turn.role === 'assistant' ? turn.text : 'tool',
  )

/** An answer as a `done` shows it. */
type ShownAnswer = AssistantTurn & { branch?: WireBranch }

const doneOf = async (response: Response) =>
  dataOf<{ turn: ShownAnswer }>(await readSse(response), 'done').at(-1)!.turn

describe('branches and the queue in workerd', () => {
  it('regenerates twice and pages back to the first answer', async () => {
    const id = await create()
    const first = await doneOf(await send(id, ask('Which answer?')))
    const regenerate = (model: string) =>
      call(`/v1/conversations/${id}/regenerate`, { body: { model } })
    const second = await doneOf(await regenerate('test/short'))
    const third = await doneOf(await regenerate('test/replay'))
    expect(second).toMatchObject({ text: 'Hi there', branch: { index: 1, count: 3 - 1 } })
    expect(third.branch).toEqual({ index: 2, count: 3 })
    expect((await get(id)).conversation.turns[1]).toEqual(third)

    const back = await call(`/v1/conversations/${id}/branch`, { body: { turn: 1, index: 0 } })
    expect(back.status).toBe(200)
    const shown = (await back.json()) as WireConversationRead
    expect(shown.conversation.turns[1]).toEqual({ ...first, branch: { index: 0, count: 3 } })
    expect(await get(id)).toEqual(shown)
    // The stored path is the first answer's, items and all.
    const stored = await worker.fetch(`/v1/__test/conversation?id=${id}`)
    const { turns } = (await stored.json()) as { turns: { text?: string; items?: unknown }[] }
    expect(turns[1]).toMatchObject({ text: first.text, items: expect.anything() })

    const wrong = await call(`/v1/conversations/${id}/branch`, { body: { turn: 1, index: 3 } })
    expect(wrong.status).toBe(400)
    expect(await wrong.json()).toMatchObject({ error: { field: 'index' } })
  })

  it('edits the first question, and the model gets only the edited path', async () => {
    const id = await create()
    await readSse(await send(id, ask('First question')))
    await readSse(await send(id, ask('Second question')))
    const edited = await readSse(
      await call(`/v1/conversations/${id}/edit`, {
        body: { turn: 0, content: 'Edited question', model: 'test/replay' },
      }),
    )
    expect(runs(edited)[0]).toBe('turn')
    expect(dataOf(edited, 'turn')[0]).toEqual({
      turn: { ...user('Edited question'), branch: { index: 1, count: 2 } },
      at: 0,
    })
    // `test/replay` answers with the request the model was sent.
    const sent = dataOf<{ turn: ShownAnswer }>(edited, 'done')[0]!.turn
    const request = JSON.parse(sent.role === 'assistant' ? sent.text : '') as unknown[]
    expect(request).toEqual([{ role: 'user', content: 'Edited question' }])
    expect(texts(await get(id))).toEqual([
      'Edited question',
      sent.role === 'assistant' && sent.text,
    ])

    const back = await call(`/v1/conversations/${id}/branch`, { body: { turn: 0, index: 0 } })
    const old = (await back.json()) as WireConversationRead
    expect(texts(old).filter((_, i) => i % 2 === 0)).toEqual(['First question', 'Second question'])
    const refused = await call(`/v1/conversations/${id}/edit`, {
      body: { turn: 1, content: 'x', model: 'mock/echo' },
    })
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({ error: { field: 'turn' } })
  })

  it('answers three messages sent from two tabs during one answer, in order, and tells every tab', async () => {
    const id = await create()
    const follower = await call(`/v1/conversations/${id}/stream?follow=true`)
    gate.hold()
    try {
      const running = await send(id, ask('Paced first', 'gated/paced'))
      await gate.sendUntil((sent) => sent.steps >= 1)
      // Two tabs: the second on a connection of its own.
      const other = (content: string) =>
        worker.postAlone(
          `/v1/conversations/${id}/messages`,
          { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
          JSON.stringify(ask(content)),
        )
      const answers = [await send(id, ask('One')), await other('Two'), await send(id, ask('Three'))]
      expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202])
      expect(await Promise.all(answers.map((answer) => answer.json()))).toEqual([
        { queued: 1 },
        { queued: 2 },
        { queued: 3 },
      ])
      expect((await get(id)).queue).toEqual([user('One'), user('Two'), user('Three')])
      gate.open()
      await readSse(running)
    } finally {
      gate.open()
    }
    const shown = await idle(id)
    expect(texts(shown).filter((_, i) => i % 2 === 0)).toEqual([
      'Paced first',
      'One',
      'Two',
      'Three',
    ])
    expect(shown.conversation.turns.map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ])
    const seen = await readUntil(follower, (got) => dataOf(got, 'done').length === 4)
    await follower.body!.cancel()
    expect(dataOf(seen, 'queued')).toEqual([
      { turn: user('One'), position: 1 },
      { turn: user('Two'), position: 2 },
      { turn: user('Three'), position: 3 },
    ])
    expect(dataOf(seen, 'queue').at(-1)).toEqual({ queue: [] })
  })

  it('clears the queue with DELETE, and sends none of it', async () => {
    const id = await create()
    gate.hold()
    try {
      const running = await send(id, ask('Paced', 'gated/paced'))
      await gate.sendUntil((sent) => sent.steps >= 1)
      expect((await send(id, ask('Never'))).status).toBe(202)
      expect((await send(id, ask('Nor this'))).status).toBe(202)
      const cleared = await call(`/v1/conversations/${id}/queue`, { method: 'DELETE' })
      expect(cleared.status).toBe(204)
      expect(await get(id)).not.toHaveProperty('queue')
      gate.open()
      await readSse(running)
    } finally {
      gate.open()
    }
    expect(texts(await idle(id))[0]).toBe('Paced')
    expect((await idle(id)).conversation.turns).toHaveLength(2)
  })

  it('renames a conversation, exports a client’s conversations whole, and deletes them all', async () => {
    const first = await create(BOB)
    await readSse(await send(first, ask('Hello export'), BOB))
    await readSse(
      await call(`/v1/conversations/${first}/regenerate`, {
        body: { model: 'test/short' },
        token: BOB,
      }),
    )
    const second = await create(BOB)
    const renamed = await call(`/v1/conversations/${second}`, {
      method: 'PATCH',
      body: { title: 'Named by hand' },
      token: BOB,
    })
    expect(renamed.status).toBe(200)
    expect(await renamed.json()).toEqual({ id: second, title: 'Named by hand' })
    const bad = await call(`/v1/conversations/${second}`, {
      method: 'PATCH',
      body: { title: 42 },
      token: BOB,
    })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({
      error: { field: 'title', message: 'title must be a string, got 42' },
    })
    const list = async () =>
      (
        (await (await call('/v1/conversations', { token: BOB })).json()) as {
          conversations: { id: string; title: string | null }[]
        }
      ).conversations
    expect((await list()).map(({ id, title }) => [id, title]).toSorted()).toEqual(
      [
        [first, 'Hello export'],
        [second, 'Named by hand'],
      ].toSorted(),
    )

    const exported = await call('/v1/conversations?export=true', { token: BOB })
    expect(exported.status).toBe(200)
    const text = await exported.text()
    expect(text).not.toContain('"items"')
    const { conversations } = JSON.parse(text) as WireConversationExport
    expect(conversations.map(({ id }) => id).toSorted()).toEqual([first, second].toSorted())
    const whole = conversations.find(({ id }) => id === first)!
    expect(whole.turns.map(({ parent, active }) => [parent, active])).toEqual([
      [null, true],
      [0, false],
      [0, true],
    ])
    expect(whole.conversation.turns[1]).toMatchObject({ text: 'Hi there' })

    const other = await create(CAROL)
    expect((await call('/v1/conversations', { method: 'DELETE', token: BOB })).status).toBe(204)
    expect(await list()).toEqual([])
    for (const id of [first, second]) {
      expect((await call(`/v1/conversations/${id}`, { token: BOB })).status).toBe(404)
    }
    expect((await get(other, CAROL)).id).toBe(other)
  })

  it('reads a conversation stored before branches, and keeps versions in it', async () => {
    const { id, conversation, index } = STORED
    const load = async (name: string, tables: unknown) => {
      const path = `/v1/__test/conversation?id=${encodeURIComponent(name)}&load=1`
      const loaded = await worker.fetch(path, { method: 'POST', body: JSON.stringify(tables) })
      expect(loaded.status).toBe(204)
    }
    const meta = (conversation as { name: string; rows: { json?: string }[] }[]).find(
      (table) => table.name === 'meta',
    )!
    const { owner } = JSON.parse(meta.rows[0]!.json!) as { owner: string }
    await load(id, conversation)
    await load(`client:${owner}`, index)
    const stored = await get(id)
    expect(stored.conversation.turns.map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ])
    expect(stored.conversation.turns.some((turn) => 'branch' in turn)).toBe(false)
    const old = stored.conversation.turns[3]!
    // A regenerate keeps the answer it replaces, a branch away, in the rows stored before.
    const again = await doneOf(
      await call(`/v1/conversations/${id}/regenerate`, { body: { model: 'test/short' } }),
    )
    expect(again).toMatchObject({ text: 'Hi there', branch: { index: 1, count: 2 } })
    const back = await call(`/v1/conversations/${id}/branch`, { body: { turn: 3, index: 0 } })
    const shown = (await back.json()) as WireConversationRead
    expect(shown.conversation.turns[3]).toEqual({ ...old, branch: { index: 0, count: 2 } })
    // And on from there.
    const next = await doneOf(await send(id, ask('Still here?')))
    expect(next.text).toContain('Still here?')
    expect((await get(id)).conversation.turns).toHaveLength(6)
  })
})
