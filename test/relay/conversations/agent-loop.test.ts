import { describe, expect, it } from 'vitest'
import type { AssistantTurn, ToolTurn } from '../../../src/core/conversation.ts'
import type { WireToolResult } from '../../../src/core/wire.ts'
import { mock } from '../../../src/providers/mock/index.ts'
import { RELAY_URL } from '../../client/helpers.ts'
import { cutFollow } from '../../helpers/cut-follow.ts'
import { memoryRelay, storesOn } from '../../helpers/memory-relay.ts'
import { dataOf, parseSse, readRest, readSse, readUntil, runs } from '../sse-reader.ts'
import { agentWorld, ALICE, gate, ID, scripted, user } from './agent-world.ts'

// A durable conversation's tool loop (DESIGN §13), in Node on SQLite in memory: server tools run
// in the host, client calls are awaited, each step is stored before the next model call.

const TOKEN = 'token-agent-loop-0123456789'
/** How long a store may take to read what the relay sent, on a busy machine. */
const WAIT = { timeout: 20_000 }

/** `held`: a server tool that asks for approval, then runs until `until` lets it answer. */
function heldTool(until: { wait(): Promise<void> }) {
  return {
    parameters: { type: 'object', properties: {} },
    needsApproval: true,
    execute: async () => {
      await until.wait()
      return 'held and done'
    },
  }
}

/**
 * `test/clock-held`: its call `at` (from 0) makes a step of two calls, `clock` (which runs at once)
 * and `held` (which waits for a person); the call after it says 'Both ran.', any other 'Noted.'.
 */
function clockAndHeld(at: number) {
  return scripted('clock-held', (index) =>
    index === at
      ? {
          toolCalls: [
            { id: 'c1', name: 'clock', input: {} },
            { id: 'h1', name: 'held', input: {} },
          ],
        }
      : { text: index === at + 1 ? 'Both ran.' : 'Noted.' },
  )
}

/**
 * `test/steps`: a loop of two model calls, the first calling `clock`, the second writing `abcdef`
 * an event a letter. The first step streams at once, the second as the test lets it (`later`).
 */
function pacedSteps() {
  const later = gate()
  const steps = mock({
    provider: 'test',
    model: 'steps',
    script: [{ toolCalls: [{ name: 'clock', input: {} }] }, { text: 'abcdef' }],
    chunkSize: 1,
    pace: ({ call }) => (call.index === 0 ? Promise.resolve() : later.wait()),
  })
  return { later, steps }
}
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('a conversation’s tool loop', () => {
  it('runs a server tool the model calls, stores its turn, and answers it in the same stream', async () => {
    const { create, ask, shown } = agentWorld()
    await create()
    const read = await readSse(await ask('What does the clock say?', { serverTools: ['clock'] }))
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
    const [step, answer] = dataOf<{ turn: AssistantTurn }>(read, 'done').map((d) => d.turn)
    expect(step).toMatchObject({ stopReason: 'tool-calls', toolCalls: [{ name: 'clock' }] })
    expect(answer!.text).toBe(`The clock tool returned "${String(result!.output)}".`)
    // The tool turn's `turn` event holds the stored results.
    const toolTurn = dataOf<{ turn: ToolTurn }>(read, 'turn')[1]!.turn
    expect(toolTurn).toEqual({ role: 'tool', results: [{ ...result, isError: undefined }] })
    const view = await shown()
    expect(view.conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(view).not.toHaveProperty('pending')
    expect(view.streaming).toBe(false)
  })

  it('offers only the server tools a message names, and refuses a name the relay lacks', async () => {
    const { create, ask, shown } = agentWorld()
    await create()
    // Not named: the mock sees no clock tool, and says how to ask for one it has.
    const plain = await readSse(await ask('What does the clock say?'))
    expect(runs(plain)).toEqual(['turn', 'thinking', 'text', 'done'])
    const refused = await ask('Hi', { serverTools: ['clock', 'format_disk'] })
    expect(refused.status).toBe(400)
    const { error } = (await refused.json()) as { error: { field: string; message: string } }
    expect(error.field).toBe('serverTools[1]')
    expect(error.message).toMatch(/'format_disk' is not a server tool of this relay/)
    expect((await shown()).conversation.turns).toHaveLength(2)
  })

  it('runs the calls of one step in parallel, and a stop answers them as stopped and aborts them', async () => {
    const twice = scripted('twice', [
      {
        toolCalls: [
          { id: 'a', name: 'slow', input: {} },
          { id: 'b', name: 'slow', input: {} },
        ],
      },
    ])
    const { hosts, slow, create, send, shown } = agentWorld({ models: [twice] })
    await create()
    const running = await send({ model: 'test/twice', turn: user('Go'), serverTools: ['slow'] })
    // Both started while neither has finished.
    await expect.poll(() => slow.started).toBe(2)
    expect((await shown()).streaming).toBe(true)
    const stop = await hosts.request(ID, 'stop', ALICE)
    expect(stop.status).toBe(204)
    expect(slow.signals.map((signal) => signal.aborted)).toEqual([true, true])
    const read = await readSse(running)
    // The stop's tool turn starts no answer: the stream ends with the conversation as it now is.
    expect(runs(read)).toEqual(['turn', 'tool-call', 'tool-result', 'done', 'reset'])
    expect(dataOf<WireToolResult>(read, 'tool-result')).toEqual([
      { callId: 'a', name: 'slow', output: 'Stopped before the tool finished.', isError: true },
      { callId: 'b', name: 'slow', output: 'Stopped before the tool finished.', isError: true },
    ])
    const view = await shown()
    expect(view.streaming).toBe(false)
    expect(view.conversation.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool'])
    expect(dataOf(read, 'reset')).toEqual([{ conversation: view.conversation, streaming: false }])
    // Nothing waits: the conversation goes on.
    expect((await send({ model: 'mock/echo', turn: user('Next') })).status).toBe(200)
  })

  it('makes at most maxSteps model calls, answers the last calls as not run, and stores each step before the next call', async () => {
    const seen: { roles: string[]; held: number }[] = []
    let hostsRef: ReturnType<typeof agentWorld>['hosts'] | undefined
    const again = scripted('again', () => {
      const host = hostsRef!.get(ID)
      seen.push({ roles: host.storedTurns().map((t) => t.role), held: host.stats().heldEvents })
      return { text: 'Once more.', toolCalls: [{ name: 'clock', input: {} }] }
    })
    const { hosts, create, send, shown } = agentWorld({ models: [again] })
    hostsRef = hosts
    await create()
    const body = { model: 'test/again', turn: user('Loop'), serverTools: ['clock'], maxSteps: 2 }
    const read = await readSse(await send(body))
    expect(again.calls).toHaveLength(2)
    // When the second call was made, the first step was stored, turns and events.
    expect(seen[1]).toEqual({ roles: ['user', 'assistant', 'tool'], held: 0 })
    const results = dataOf<WireToolResult>(read, 'tool-result')
    expect(results.at(-1)).toMatchObject({
      output: 'Not run: the limit of 2 model calls was reached before this call.',
      isError: true,
    })
    expect(read.events.at(-1)!.event).toBe('done')
    expect(dataOf<{ turn: AssistantTurn }>(read, 'done').at(-1)!.turn.stopReason).toBe('tool-calls')
    const view = await shown()
    expect(view.conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ])
    // Without maxSteps, runTools's default: 8 calls.
    await readSse(await send({ model: 'test/again', turn: user('Loop'), serverTools: ['clock'] }))
    expect(again.calls).toHaveLength(10)
  })

  it('stores a step once while its server tool runs, and not again once every call has its result', async () => {
    const steps = scripted('steps', [
      { toolCalls: [{ id: 'a', name: 'slow', input: {} }] },
      { toolCalls: [{ id: 'b', name: 'clock', input: {} }] },
      { text: 'Done.' },
    ])
    const { hosts, slow, slowGate, create, send } = agentWorld({ models: [steps] })
    await create()
    // Every statement that writes the step's record.
    const sql = hosts.storage(ID)!.sql
    const exec = sql.exec.bind(sql)
    const stepWrites: string[] = []
    sql.exec = (query, ...bindings) => {
      if (/^(INSERT INTO|DELETE FROM) run\b/.test(query)) stepWrites.push(query.split(' ')[0]!)
      return exec(query, ...bindings)
    }
    const stored = () =>
      sql
        .exec('SELECT json FROM run')
        .toArray()
        .map((row) => row['json'])
    const body = { model: 'test/steps', turn: user('Go'), serverTools: ['slow', 'clock'] }
    const response = await send(body)
    await expect.poll(() => slow.started).toBe(1)
    // While it runs, a restart finds the step and its running call.
    expect(stored().map((json) => JSON.parse(String(json)))).toMatchObject([
      { calls: [{ call: { id: 'a' }, state: { is: 'running' } }] },
    ])
    slowGate.open()
    expect(runs(await readSse(response)).filter((event) => event === 'tool-result')).toHaveLength(2)
    // Each step's record written once, as its tool started, and deleted with its tool turn.
    expect(stepWrites).toEqual(['DELETE', 'INSERT', 'DELETE', 'DELETE', 'INSERT', 'DELETE'])
    expect(stored()).toEqual([])
  })

  it('awaits a client’s calls with the stream ended, queues a message meanwhile, and goes on with its tool turn', async () => {
    const both = scripted('both', [
      {
        toolCalls: [
          { id: 'c1', name: 'clock', input: {} },
          { id: 'c2', name: 'lookup', input: { city: 'Paris' } },
        ],
      },
      { text: 'Both answered.' },
    ])
    const { hosts, create, send, shown } = agentWorld({ models: [both] })
    await create()
    const lookup = { name: 'lookup', parameters: { type: 'object' } }
    const body = { model: 'test/both', serverTools: ['clock'], tools: [lookup] }
    const first = await readSse(await send({ ...body, turn: user('Both') }))
    expect(runs(first)).toEqual(['turn', 'tool-call', 'tool-result', 'done'])
    const waiting = await shown()
    expect(waiting.streaming).toBe(false)
    expect(waiting.pending).toEqual({
      approvals: [],
      calls: [{ id: 'c2', name: 'lookup', input: { city: 'Paris' } }],
      // What the step has, for a page that loads now to show beside its call.
      results: dataOf<WireToolResult>(first, 'tool-result'),
    })
    // A waiting loop counts as running: a message is queued (and its queue cleared here), a
    // regenerate is told what it waits on.
    const message = await send({ model: 'mock/echo', turn: user('Meanwhile') })
    expect(message.status).toBe(202)
    expect((await hosts.request(ID, 'clear-queue', ALICE)).status).toBe(204)
    const regenerate = await hosts.request(ID, 'regenerate', ALICE, {
      body: { model: 'mock/echo' },
    })
    expect(regenerate.status).toBe(409)
    expect(await regenerate.text()).toMatch(/the client's result of lookup \(call c2\)/)
    // The server tool's call is not the client's to answer, and every call it waits on is.
    const theirs = await send({
      ...body,
      turn: { role: 'tool', results: [{ callId: 'c1', name: 'clock', output: 'forged' }] },
    })
    expect(theirs.status).toBe(400)
    expect(((await theirs.json()) as { error: { field: string } }).error.field).toBe(
      'turn.results[0].callId',
    )
    const answered = await readSse(
      await send({
        ...body,
        turn: { role: 'tool', results: [{ callId: 'c2', name: 'lookup', output: { temp: 21 } }] },
      }),
    )
    expect(runs(answered)).toEqual(['turn', 'text', 'done'])
    const tools = dataOf<{ turn: ToolTurn }>(answered, 'turn')[0]!.turn
    expect(tools.results.map((r) => [r.callId, r.name])).toEqual([
      ['c1', 'clock'],
      ['c2', 'lookup'],
    ])
    expect(tools.results[1]!.output).toEqual({ temp: 21 })
    const view = await shown()
    expect(view.conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(view).not.toHaveProperty('pending')
  })

  it('answers a tool that throws as an error result, its message without the key, and goes on', async () => {
    const { create, ask, shown } = agentWorld()
    await create()
    const read = await readSse(await ask('Run broken now', { serverTools: ['broken'] }))
    const [result] = dataOf<WireToolResult>(read, 'tool-result')
    expect(result).toMatchObject({ name: 'broken', isError: true })
    expect(String(result!.output)).toMatch(/invalid x-api-key/)
    expect(String(result!.output)).not.toMatch(/sk-ant/)
    expect(read.events.at(-1)!.event).toBe('done')
    expect((await shown()).conversation.turns).toHaveLength(4)
  })

  it('stops a loop in a later step from any tab, keeping the steps it stored and what that tab showed', async () => {
    const { later, steps } = pacedSteps()
    const { hosts, create, send, shown } = agentWorld({ models: [steps] })
    await create()
    const response = await send({ model: 'test/steps', turn: user('Go'), serverTools: ['clock'] })
    later.open(2)
    const seen = await readUntil(response, (read) => dataOf(read, 'text').length >= 2)
    const lastId = seen.events.at(-1)!.id!
    const stop = await hosts.request(ID, 'stop', ALICE, { headers: { 'last-event-id': lastId } })
    expect(stop.status).toBe(204)
    const view = await shown()
    expect(view.streaming).toBe(false)
    expect(view.conversation.turns.map((t) => t.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(view.conversation.turns[3]).toMatchObject({ text: 'ab', stopReason: 'aborted' })
  })

  it("resumes a loop's later step from before what the log keeps: the path before its tool turn, then that turn and its answer", async () => {
    const { later, steps } = pacedSteps()
    const { hosts, create, ask, send, shown } = agentWorld({ models: [steps] })
    await create()
    const first = await readSse(await ask('One'))
    await readSse(await ask('Two'))
    await readSse(await ask('Three'))
    const response = await send({ model: 'test/steps', turn: user('Go'), serverTools: ['clock'] })
    later.open(2)
    const seen = await readUntil(response, (read) => dataOf(read, 'text').length >= 2)
    const toolTurn = seen.events.filter((event) => event.event === 'turn')[1]!
    const view = await shown()
    expect(view.conversation.turns.map((t) => t.role).slice(-3)).toEqual([
      'user',
      'assistant',
      'tool',
    ])
    const resuming = await hosts.request(ID, 'stream', ALICE, {
      headers: { 'last-event-id': first.events.at(-1)!.id! },
    })
    later.open(10)
    const resumed = await readSse(resuming)
    const answered = parseSse(seen.raw + (await readRest(response)))
    // The first step stands in the conversation, up to the turn that made its calls; the tool
    // turn comes as it came live, and the answer to it: a client shows each turn once.
    const [reset, ...after] = resumed.events
    expect(reset).toMatchObject({ event: 'reset', id: String(Number(toolTurn.id) - 1) })
    expect(JSON.parse(reset!.data)).toEqual({
      conversation: { turns: view.conversation.turns.slice(0, -1) },
      streaming: true,
      queue: [],
    })
    expect(after).toEqual(
      answered.events.filter((event) => Number(event.id) >= Number(toolTurn.id)),
    )
    expect(runs({ ...resumed, events: after })).toEqual(['turn', 'text', 'done'])
  })
})

describe('a resume from before what the log keeps while the loop’s server tools run', () => {
  /**
   * A world whose `test/steps` model calls `tools` in turn, a step each, then answers: the step
   * of `slow` (the last) runs until the test lets it; `held` needs an approval, then runs until
   * its own gate opens. Three exchanges come first: the log keeps the last one's events only.
   */
  async function behind(tools: string[]) {
    const steps = scripted('steps', (index) =>
      index < tools.length
        ? { toolCalls: [{ id: `call-${index}`, name: tools[index]!, input: {} }] }
        : { text: 'Done.' },
    )
    const held = gate()
    const world = agentWorld({
      models: [steps],
      tools: {
        held: heldTool(held),
      },
    })
    await world.create()
    const first = await readSse(await world.ask('One'))
    await readSse(await world.ask('Two'))
    await readSse(await world.ask('Three'))
    const resume = () =>
      world.hosts.request(ID, 'stream', ALICE, {
        headers: { 'last-event-id': first.events.at(-1)!.id! },
      })
    return { ...world, held, resume, body: { model: 'test/steps', serverTools: tools } }
  }

  it.each([
    ["a message's first step", 'messages', { turn: user('Go') }, ['slow'], 2],
    ['a later step', 'messages', { turn: user('Go') }, ['clock', 'slow'], 2],
    ["a regenerate's first step", 'regenerate', {}, ['slow'], 1],
    ["an edit's first step", 'edit', { turn: 2, content: 'Two, edited' }, ['slow'], 2],
  ] as const)(
    'sends %s from its turn, after the conversation as it was before that turn',
    async (_what, op, asked, tools, dropped) => {
      const { hosts, slow, slowGate, shown, resume, body } = await behind([...tools])
      const response = await hosts.request(ID, op, ALICE, { body: { ...body, ...asked } })
      await expect.poll(() => slow.started).toBe(1)
      // The step's turn is stored, its tool runs: no model call is in flight.
      const view = await shown()
      expect(view.conversation.turns.at(-1)).toMatchObject({ toolCalls: [{ name: 'slow' }] })
      const resuming = await resume()
      slowGate.open()
      const resumed = await readSse(resuming)
      const answered = await readSse(response)
      // The `turn` of the model call that made the step: the message's, a tool turn's, the
      // regenerate's (its answer in place of the old one) or the edit's (its question at `at`).
      const stepTurn = answered.events.filter((event) => event.event === 'turn')[tools.length - 1]!
      const [reset, ...after] = resumed.events
      expect(reset).toMatchObject({ event: 'reset', id: String(Number(stepTurn.id) - 1) })
      // Without the step's turn, and the turn it answers unless the `turn` replaces an answer.
      const turns = view.conversation.turns.slice(0, -dropped)
      expect(JSON.parse(reset!.data)).toEqual({
        conversation: { ...view.conversation, turns },
        streaming: true,
        queue: [],
        pending: view.pending,
      })
      expect(after).toEqual(answered.events.filter((e) => Number(e.id) >= Number(stepTurn.id)))
      expect((await shown()).conversation.turns.at(-1)).toMatchObject({ text: 'Done.' })
    },
  )

  it('sends an approved call’s step from its turn, the events before the wait included', async () => {
    const { hosts, held, send, decide, shown, resume, body } = await behind(['held'])
    const asked = await readSse(await send({ ...body, turn: user('Go') }))
    expect(runs(asked)).toEqual(['turn', 'tool-call', 'tool-approval', 'done'])
    const [approval] = dataOf<{ approvalId: string }>(asked, 'tool-approval')
    expect((await decide(approval!.approvalId, { approve: true })).status).toBe(202)
    // The loop goes on by itself; its tool runs until the test lets it.
    const going = await hosts.request(ID, 'stream', ALICE, {
      headers: { 'last-event-id': asked.events.at(-1)!.id! },
    })
    const view = await shown()
    expect(view.streaming).toBe(true)
    const resuming = await resume()
    held.open()
    const resumed = await readSse(resuming)
    const went = await readSse(going)
    const [reset, ...after] = resumed.events
    expect(reset).toMatchObject({ event: 'reset', id: String(Number(asked.events[0]!.id) - 1) })
    expect(JSON.parse(reset!.data)).toMatchObject({
      conversation: { turns: view.conversation.turns.slice(0, -2) },
    })
    expect(after).toEqual([...asked.events, ...went.events])
    expect(runs({ ...resumed, events: after })).toEqual([
      'turn',
      'tool-call',
      'tool-approval',
      'done',
      'tool-result',
      'turn',
      'text',
      'done',
    ])
  })

  it('stands for what the log holds once a restart lost the step’s turn, and sends every event after it', async () => {
    const { hosts, held, send, decide, shown, resume, body } = await behind(['held'])
    const asked = await readSse(await send({ ...body, turn: user('Go') }))
    const [approval] = dataOf<{ approvalId: string }>(asked, 'tool-approval')
    // The log of the host started again holds nothing before the decision: no step's `turn`.
    hosts.restart(ID)
    expect((await decide(approval!.approvalId, { approve: true })).status).toBe(202)
    const going = await hosts.request(ID, 'stream', ALICE, {
      headers: { 'last-event-id': asked.events.at(-1)!.id! },
    })
    // The approved call runs: nothing of the answer going on is logged yet.
    const { lastEventId } = await shown()
    const resuming = await resume()
    held.open()
    const resumed = await readSse(resuming)
    const went = await readSse(going)
    const [reset, ...after] = resumed.events
    expect(reset).toMatchObject({ event: 'reset', id: String(lastEventId) })
    expect(after.every((event) => Number(event.id) > Number(reset!.id))).toBe(true)
    // Every event logged after what the reset stands for: the approved call's result first.
    expect(after).toEqual(went.events)
    expect(runs({ ...resumed, events: after })).toEqual(['tool-result', 'turn', 'text', 'done'])
  })
})

describe('a store resumed from before what the log keeps while the loop’s server tools run', () => {
  it('shows each turn of the step once, as the relay keeps them', async () => {
    const { hosts, slow, slowGate } = agentWorld()
    const relay = memoryRelay(hosts, TOKEN)
    const headers = { authorization: `Bearer ${TOKEN}` }
    const store = storesOn(relay, TOKEN, 'mock/echo')
    const held = async (id: string) =>
      (await (await relay.fetch(`${RELAY_URL}/v1/conversations/${id}`, { headers })).json()) as {
        conversation: unknown
        lastEventId: number
      }
    const first = store()
    await first.send('One')
    // Another tab, whose follow stream drops; two exchanges later its resume reaches the relay
    // while the step's tool runs.
    const cut = cutFollow(relay.fetch)
    const other = store({ id: first.id, fetch: cut.fetch })
    await other.load()
    const { lastEventId } = await held(first.id!)
    cut.drop()
    await first.send('Two')
    await first.send('Three')
    const asking = first.send('Run slow now', { serverTools: ['slow'] })
    await expect.poll(() => slow.started).toBe(1)
    cut.restore()
    await expect.poll(() => other.getSnapshot().status, WAIT).toBe('streaming')
    expect(cut.resumedFrom()[0]).toBe(String(lastEventId))
    slowGate.open()
    await asking
    await expect.poll(() => other.getSnapshot().status, WAIT).toBe('ready')
    const { conversation } = await held(first.id!)
    expect(first.getSnapshot().conversation).toEqual(conversation)
    expect(other.getSnapshot().messages.map((m) => m.text)).toEqual(
      first.getSnapshot().messages.map((m) => m.text),
    )
    expect(other.getSnapshot().conversation).toEqual(conversation)
    first.dispose()
    other.dispose()
  })

  it('shows the relay’s conversation, and its step’s results, when it resumed while an approved call ran after a restart', async () => {
    const both = clockAndHeld(3)
    const held = gate()
    const { hosts } = agentWorld({ models: [both], tools: { held: heldTool(held) } })
    const relay = memoryRelay(hosts, TOKEN)
    const headers = { authorization: `Bearer ${TOKEN}` }
    const store = storesOn(relay, TOKEN, 'test/clock-held')
    const url = (path: string) => `${RELAY_URL}/v1/conversations/${path}`
    const shown = async (id: string) =>
      (await (await relay.fetch(url(id), { headers })).json()) as {
        conversation: { turns: unknown[] }
        streaming: boolean
        pending?: { approvals: { approvalId: string }[] }
      }
    const results = (tab: ReturnType<typeof store>) =>
      tab
        .getSnapshot()
        .messages.at(-1)
        ?.toolCalls.map((call) => call.result)
    const first = store()
    await first.send('One')
    const cut = cutFollow(relay.fetch)
    const other = store({ id: first.id, fetch: cut.fetch })
    await other.load()
    cut.drop()
    await first.send('Two')
    await first.send('Three')
    await first.send('Both', { serverTools: ['clock', 'held'] })
    const id = first.id!
    const [ran] = results(first)!
    expect(ran).toMatchObject({ callId: 'c1', name: 'clock' })
    const [approval] = (await shown(id)).pending!.approvals
    first.dispose()
    // Started again, the host's log holds nothing of the step; once approved, its call runs.
    hosts.restart(id)
    const decided = await relay.fetch(url(`${id}/approvals/${approval!.approvalId}`), {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ approve: true }),
    })
    expect(decided.status).toBe(202)
    const waiting = (await shown(id)).conversation.turns.length
    cut.restore()
    await expect.poll(() => other.getSnapshot().conversation.turns.length, WAIT).toBe(waiting)
    // Its reset says what the step has, though the events that said it are gone.
    await expect.poll(() => results(other), WAIT).toEqual([ran, undefined])
    held.open()
    await expect.poll(async () => (await shown(id)).streaming, WAIT).toBe(false)
    await expect.poll(() => other.getSnapshot().status, WAIT).toBe('ready')
    const { conversation } = await shown(id)
    expect(conversation.turns).toHaveLength(waiting + 2)
    expect(other.getSnapshot().conversation).toEqual(conversation)
    other.dispose()
  })
  it('shows the results its step has to a page that loads while the step waits on an approval', async () => {
    const both = clockAndHeld(0)
    const held = gate()
    const { hosts } = agentWorld({ models: [both], tools: { held: heldTool(held) } })
    const relay = memoryRelay(hosts, TOKEN)
    const store = storesOn(relay, TOKEN, 'test/clock-held')
    const first = store()
    await first.send('Both', { serverTools: ['clock', 'held'] })
    const [approval] = first.getSnapshot().pending!.approvals
    expect(approval).toMatchObject({ callId: 'h1', name: 'held' })
    const shownCalls = (tab: typeof first) => tab.getSnapshot().messages.at(-1)!.toolCalls
    const ran = shownCalls(first)[0]!.result
    expect(ran).toMatchObject({ callId: 'c1', name: 'clock' })
    // A page that opens the conversation now shows what ran beside its call, and what waits.
    const later = store({ id: first.id })
    await later.load()
    expect(later.getSnapshot().pending!.approvals).toEqual([approval])
    expect(shownCalls(later).map((call) => call.result)).toEqual([ran, undefined])
    first.dispose()
    later.dispose()
  })
})
