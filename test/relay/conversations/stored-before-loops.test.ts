import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { StoredTable } from '../../helpers/memory-hosts.ts'
import { readSse, runs } from '../sse-reader.ts'
import { agentWorld, user } from './agent-world.ts'

// Conversations the relay stored before tool loops (rows written by that code, see the fixture's
// note) read and go on: a client tool call it left waiting is answered as it was then, a loop
// runs in them (their database gains the loop's tables), and an answer it left cut ends with an
// error. test/worker/conversations.test.ts does the same with an older store in workerd.

const STORED = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures/stored-before-loops.json'), 'utf8'),
) as { owner: string; waiting: StoredTable[]; cut: StoredTable[]; index: StoredTable[] }
const WAITING = 'StoredBeforeLoops00001'
const CUT = 'StoredBeforeLoops00002'
const { owner } = STORED

function world() {
  const stored = agentWorld()
  stored.hosts.load(WAITING, STORED.waiting)
  stored.hosts.load(CUT, STORED.cut)
  stored.hosts.load(`client:${owner}`, STORED.index)
  const post = (id: string, op: string, body: unknown) =>
    stored.hosts.request(id, op, owner, { body })
  const get = async (id: string) =>
    (await (await stored.hosts.request(id, 'get', owner)).json()) as {
      conversation: { turns: { role: string; text?: string }[]; system?: string }
      streaming: boolean
      lastError?: { message: string }
    }
  return { ...stored, post, get }
}

describe('a conversation stored before tool loops', () => {
  it('reads as it was, and answers its waiting client call with a tool turn as it did then', async () => {
    const { post, get, hosts } = world()
    const shown = await get(WAITING)
    expect(shown.conversation.system).toBe('Be brief.')
    expect(shown.conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ])
    expect(shown).not.toHaveProperty('pending')
    const result = { callId: 'call_1', name: 'lookup', output: { temp: 21 } }
    const answered = await readSse(
      await post(WAITING, 'messages', {
        model: 'mock/echo',
        turn: { role: 'tool', results: [result] },
      }),
    )
    expect(runs(answered)).toEqual(['turn', 'thinking', 'text', 'done'])
    expect(answered.raw).toContain('The lookup tool returned {\\"temp\\":21}.')
    const list = await hosts.request(`client:${owner}`, 'list', owner)
    const { conversations } = (await list.json()) as { conversations: { id: string }[] }
    expect(conversations.map((c) => c.id).toSorted()).toEqual([WAITING, CUT].toSorted())
  })

  it('runs a tool loop, with an approval, in its database', async () => {
    const { post, get, decide } = world()
    await readSse(
      await post(WAITING, 'messages', {
        model: 'mock/echo',
        turn: { role: 'tool', results: [{ callId: 'call_1', name: 'lookup', output: 1 }] },
      }),
    )
    const clock = await readSse(
      await post(WAITING, 'messages', {
        model: 'mock/echo',
        serverTools: ['clock', 'save_note'],
        turn: user('save_note remember the milk'),
      }),
    )
    const approval = JSON.parse(clock.events.find((e) => e.event === 'tool-approval')!.data) as {
      approvalId: string
    }
    const decided = await decide(approval.approvalId, { approve: true }, owner, WAITING)
    expect(decided.status).toBe(202)
    await expect.poll(async () => (await get(WAITING)).streaming).toBe(false)
    const turns = (await get(WAITING)).conversation.turns
    expect(turns.map((t) => t.role).slice(6)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(turns.at(-1)!.text).toBe('The save_note tool returned "saved: remember the milk".')
  })

  it('ends the answer it left cut with an error, and regenerates it', async () => {
    const { post, get } = world()
    const shown = await get(CUT)
    expect(shown.streaming).toBe(false)
    expect(shown.lastError?.message).toMatch(/interrupted when the relay restarted/)
    expect(shown.conversation.turns.map((t) => t.role)).toEqual(['user'])
    const again = await readSse(await post(CUT, 'regenerate', { model: 'mock/echo' }))
    expect(again.events.at(-1)!.event).toBe('done')
    expect((await get(CUT)).conversation.turns.map((t) => t.role)).toEqual(['user', 'assistant'])
  })
})
