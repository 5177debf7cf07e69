import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { WireConversationRead } from '../../../src/core/wire.ts'
import type { StoredTable } from '../../helpers/memory-hosts.ts'
import { dataOf, readSse } from '../sse-reader.ts'
import { agentWorld, scripted, user } from './agent-world.ts'

// Conversations the relay stored before branches and the queue (rows written by that code, see
// the fixture's note) read as the flat path they were and go on: with versions, edits and
// switches, and an answer that code left cut mid-regenerate runs again as a version of its own.
// test/worker/conversation-branches.test.ts does the same with an older store in workerd.

const STORED = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures/stored-before-branches.json'), 'utf8'),
) as { owner: string; looped: StoredTable[]; cut: StoredTable[]; index: StoredTable[] }
const LOOPED = 'StoredBeforeBranches01'
const CUT = 'StoredBeforeBranches02'
const { owner } = STORED

function world() {
  const retried = scripted('gated', [{ text: 'Run again.' }])
  const stored = agentWorld({ models: [retried] })
  stored.hosts.load(`client:${owner}`, STORED.index)
  stored.hosts.load(LOOPED, STORED.looped)
  const post = (id: string, op: string, body: unknown) =>
    stored.hosts.request(id, op, owner, { body })
  const read = async (id: string) =>
    (await (await stored.hosts.request(id, 'get', owner)).json()) as WireConversationRead
  return { ...stored, retried, post, read }
}

const roles = (shown: WireConversationRead) => shown.conversation.turns.map((turn) => turn.role)

describe('a conversation stored before branches', () => {
  it('reads as the path it was, and takes versions, edits and switches', async () => {
    const { post, read, hosts } = world()
    const shown = await read(LOOPED)
    expect(shown.conversation.system).toBe('Be brief.')
    expect(roles(shown)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'assistant'])
    expect(shown.conversation.turns.some((turn) => 'branch' in turn)).toBe(false)
    const list = await hosts.request(`client:${owner}`, 'list', owner)
    const { conversations } = (await list.json()) as { conversations: { title: string }[] }
    expect(conversations.map((c) => c.title).toSorted()).toEqual([
      'Cut me, again',
      'Hello before branches',
    ])

    // A regenerate redoes the whole loop after the last question; the loop stays a branch away.
    const again = await readSse(await post(LOOPED, 'regenerate', { model: 'mock/echo' }))
    expect(dataOf(again, 'turn')[0]).toEqual({
      turn: user('Use clock: what time is it?'),
      replaces: true,
    })
    const regenerated = await read(LOOPED)
    expect(roles(regenerated)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(regenerated.conversation.turns[3]!.branch).toEqual({ index: 1, count: 2 })
    const back = await post(LOOPED, 'branch', { turn: 3, index: 0 })
    expect(roles((await back.json()) as WireConversationRead)).toEqual(roles(shown))

    // An edit of the first question: a version of it, and only its path goes to the model.
    const edited = await readSse(
      await post(LOOPED, 'edit', { turn: 0, content: 'Hello, edited', model: 'mock/echo' }),
    )
    expect(dataOf(edited, 'turn')[0]).toMatchObject({ at: 0 })
    expect(roles(await read(LOOPED))).toEqual(['user', 'assistant'])
    const first = await post(LOOPED, 'branch', { turn: 0, index: 0 })
    expect((await first.json()) as WireConversationRead).toEqual(await read(LOOPED))
    expect(roles(await read(LOOPED))).toEqual(roles(shown))
  })

  it('runs the regenerate it left cut again, and keeps the answer it was to replace', async () => {
    const { hosts, read, retried } = world()
    hosts.load(CUT, STORED.cut)
    await expect.poll(async () => (await read(CUT)).streaming).toBe(false)
    const shown = await read(CUT)
    expect(roles(shown)).toEqual(['user', 'assistant'])
    expect(shown.conversation.turns[1]).toMatchObject({
      text: 'Run again.',
      branch: { index: 1, count: 2 },
    })
    // It was sent the question alone, not the answer it replaces.
    expect(retried.calls[0]!.conversation.turns).toEqual([user('Cut me, again')])
  })
})
