import { describe, expect, it } from 'vitest'
import type { WireConversationExport } from '../../../src/core/wire.ts'
import { readSse } from '../sse-reader.ts'
import { agentWorld, ALICE, BOB, gatedModel, ID, user } from './agent-world.ts'

// A client's conversations as a whole (DESIGN §14), in Node on SQLite in memory: titles and
// renames, the export of every conversation, and deleting them all.

const OTHER = 'BBBBBBBBBBBBBBBBBBBBBB'
const BOBS = 'CCCCCCCCCCCCCCCCCCCCCC'

function world() {
  const { adapter: slow, letters } = gatedModel('abc')
  const made = agentWorld({ models: [slow] })
  const { hosts } = made
  const list = async (clientId = ALICE) => {
    const response = await hosts.request(`client:${clientId}`, 'list', clientId)
    return ((await response.json()) as { conversations: { id: string; title: string | null }[] })
      .conversations
  }
  const rename = (body: unknown, id = ID) => hosts.request(id, 'rename', ALICE, { body })
  return { ...made, letters, list, rename }
}

describe("a client's conversations", () => {
  it('titles a conversation by its first question until it is renamed, and checks the title', async () => {
    const { create, ask, hosts, list, rename } = world()
    await create()
    expect((await list())[0]!.title).toBeNull()
    await readSse(await ask('How do tides work?'))
    expect((await list())[0]!.title).toBe('How do tides work?')
    const renamed = await rename({ title: '  Tides,\n explained  ' })
    expect(renamed.status).toBe(200)
    expect(await renamed.json()).toEqual({ id: ID, title: 'Tides, explained' })
    expect((await list())[0]!.title).toBe('Tides, explained')
    // An edit of the first question no longer changes it.
    const edit = { turn: 0, content: 'Why are there tides?', model: 'mock/echo' }
    await readSse(await hosts.request(ID, 'edit', ALICE, { body: edit }))
    expect((await list())[0]!.title).toBe('Tides, explained')

    const faults: [unknown, string, RegExp][] = [
      [{ title: 3 }, 'title', /must be a string/],
      [{ title: ' ' }, 'title', /must not be empty/],
      [{ title: 'x'.repeat(201) }, 'title', /at most 200 characters/],
      [{}, 'title', /must be a string, got undefined/],
      [{ title: 'Ok', name: 'x' }, 'name', /not a known field/],
      [[], 'body', /must be a JSON object/],
    ]
    for (const [body, field, message] of faults) {
      const refused = await rename(body)
      expect(refused.status, JSON.stringify(body)).toBe(400)
      const { error } = (await refused.json()) as { error: { field: string; message: string } }
      expect(error.field).toBe(field)
      expect(error.message).toMatch(message)
    }
    expect((await hosts.request(ID, 'rename', BOB, { body: { title: 'Mine' } })).status).toBe(404)
  })

  it("exports this client's conversations whole: every version, the queue, no items", async () => {
    const { create, ask, send, hosts, letters } = world()
    await create()
    await readSse(await ask('First question'))
    await readSse(await hosts.request(ID, 'regenerate', ALICE, { body: { model: 'mock/echo' } }))
    await create(OTHER)
    const running = await send({ model: 'test/gated', turn: user('Slow one') }, OTHER)
    expect((await send({ model: 'mock/echo', turn: user('Queued') }, OTHER)).status).toBe(202)
    await create(BOBS, BOB)

    const response = await hosts.request(`client:${ALICE}`, 'export', ALICE)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/json')
    const text = await response.text()
    expect(text).not.toContain('"items"')
    const { conversations } = JSON.parse(text) as WireConversationExport
    expect(conversations.map((c) => c.id).toSorted()).toEqual([ID, OTHER].toSorted())
    const first = conversations.find((c) => c.id === ID)!
    expect(first.title).toBe('First question')
    expect(first.conversation.turns.map((turn) => turn.role)).toEqual(['user', 'assistant'])
    expect(first.conversation.turns[1]!.branch).toEqual({ index: 1, count: 2 })
    expect(first.turns.map(({ id, parent, active }) => [id, parent, active])).toEqual([
      [0, null, true],
      [1, 0, false],
      [2, 0, true],
    ])
    expect(first.turns[0]!.turn).toEqual(user('First question'))
    expect(first.queue).toEqual([])
    const other = conversations.find((c) => c.id === OTHER)!
    expect(other.queue).toEqual([user('Queued')])
    expect(other.turns.map(({ turn }) => turn)).toEqual([user('Slow one')])
    letters.open(3)
    await readSse(running)
  })

  it('deletes every conversation of this client, and no other', async () => {
    const { create, ask, send, hosts, list, letters } = world()
    await create()
    await readSse(await ask('One'))
    await create(OTHER)
    // One mid-answer: its stream ends, and it is gone with the rest.
    const running = await send({ model: 'test/gated', turn: user('Slow') }, OTHER)
    await create(BOBS, BOB)
    const deleted = await hosts.request(`client:${ALICE}`, 'delete-all', ALICE)
    expect(deleted.status).toBe(204)
    expect(await list()).toEqual([])
    for (const id of [ID, OTHER]) {
      expect((await hosts.request(id, 'get', ALICE)).status).toBe(404)
      expect(hosts.get(id).stats().tables).toBe(0)
    }
    expect(await (await running).text()).toMatch(/event: reconnect/)
    letters.open(3)
    expect((await list(BOB)).map((c) => c.id)).toEqual([BOBS])
    expect((await hosts.request(BOBS, 'get', BOB)).status).toBe(200)
  })

  it('keeps a conversation it could not reach listed, and says to try again', async () => {
    const { create, hosts, list } = world()
    await create()
    await create(OTHER)
    hosts.get(OTHER).erase = () => Promise.reject(new Error('out of reach'))
    const partly = await hosts.request(`client:${ALICE}`, 'delete-all', ALICE)
    expect(partly.status).toBe(503)
    expect(await partly.json()).toMatchObject({
      error: {
        kind: 'server',
        retryable: true,
        message: '1 of 2 conversations could not be deleted now: try again',
      },
    })
    expect((await list()).map((c) => c.id)).toEqual([OTHER])
    expect((await hosts.request(ID, 'get', ALICE)).status).toBe(404)
  })
})
