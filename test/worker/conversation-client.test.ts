/**
 * `relayConversation()` (thinkwire/client) against the Worker in workerd: a conversation that
 * lives on the relay, restored in a second store, resumed after a dropped connection from the last
 * event it saw, stopped from another store, continued by a browser-side tool loop, with versions
 * (regenerate, edit, switch), a queue and a title.
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocket as UndiciWebSocket } from 'undici'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { relayConversation, type RelayConversationOptions } from '../../src/client/conversation.ts'
import type { ToolTurn } from '../../src/core/conversation.ts'
import { cutFollow, laggingFollow } from '../helpers/cut-follow.ts'
import { startGate, type Gate } from '../helpers/gate.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

const TOKEN = 'token-conversation-client-01'
const PACED_TEXT = 'One line of a paced answer.\n'.repeat(14)

let worker: TestWorker
/** Paces `gated/paced`: each delta goes when the test lets it. */
let gate: Gate

/** A server the `probe` tool asks: it counts each run, and answers once the test lets it. */
const probe = { url: '', runs: 0, held: [] as ServerResponse[] }
const probeServer = createServer((_request, response) => {
  probe.runs++
  probe.held.push(response)
})
/** Lets every `probe` run that waits end, with the text `probed`. */
const answerProbes = () => {
  for (const response of probe.held.splice(0)) response.end('probed')
}

beforeAll(async () => {
  await new Promise<void>((listening) => probeServer.listen(0, '127.0.0.1', listening))
  probe.url = `http://127.0.0.1:${(probeServer.address() as AddressInfo).port}/probe`
  gate = await startGate()
  worker = await startTestWorker({
    RELAY_TOKENS: TOKEN,
    MOCK_MODELS: 'on',
    MOCK_DELAY_MS: '2',
    HEARTBEAT_MS: '1000',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
    MOCK_GATE_URL: gate.url,
    TOOL_PROBE_URL: probe.url,
  })
})

afterAll(async () => {
  await worker?.dispose()
  await gate?.close()
  for (const response of probe.held) response.destroy()
  await new Promise((closed) => probeServer.close(closed))
})

const headers = { authorization: `Bearer ${TOKEN}` }

/** A conversation store on the test Worker, with the bench token, on `mock/echo` unless told. */
function onWorker(options: Partial<RelayConversationOptions> = {}) {
  return relayConversation({ url: worker.url.href, model: 'mock/echo', headers, ...options })
}

/**
 * Waits until a following store shows, after the first exchange, `question` sent elsewhere and the
 * mock's answer to it, and is ready.
 */
async function followed(store: ReturnType<typeof onWorker>, question: string): Promise<void> {
  await vi.waitFor(() => {
    const texts = store.getSnapshot().messages.map((m) => m.text)
    expect(texts).toHaveLength(4)
    expect(texts[2]).toBe(question)
    expect(texts[3]).toContain(`You said: "${question}"`)
    // The answer's text may show before its `done` arrives.
    expect(store.getSnapshot().status).toBe('ready')
  })
}

/** The conversation as the relay stores it, and the id of its last event. */
async function stored(id: string): Promise<{ conversation: unknown; lastEventId: number }> {
  const response = await worker.fetch(`/v1/conversations/${id}`, { headers })
  expect(response.status).toBe(200)
  return (await response.json()) as { conversation: unknown; lastEventId: number }
}

/**
 * Two stores of one conversation after its first exchange: `other`'s follow stream drops (`cut`
 * brings it back), and two answers later the log keeps none of what it last saw (`lastEventId`),
 * so its resume gets a `reset`.
 */
async function oneBehind() {
  const store = onWorker({ follow: true, followOver: 'sse' })
  await store.send('Tell me a joke')
  const cut = cutFollow()
  const other = onWorker({ id: store.id, follow: true, followOver: 'sse', fetch: cut.fetch })
  await other.load()
  const { lastEventId } = await stored(store.id!)
  cut.drop()
  await store.send('Another')
  await store.send('And one more')
  return { store, other, cut, lastEventId }
}

/** A fetch whose first conversation stream is cut after `bytes`, as a dropped network cuts it. */
function droppingFetch(bytes: number) {
  let dropped = 0
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init)
    const url = String(input)
    const streams = response.headers.get('content-type')?.includes('event-stream') === true
    if (!streams || dropped > 0 || !url.includes('/messages')) return response
    dropped++
    let seen = 0
    const reader = response.body!.getReader()
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const chunk = await reader.read()
        if (chunk.done) return controller.close()
        seen += chunk.value.byteLength
        if (seen > bytes) {
          void reader.cancel()
          return controller.error(new TypeError('network connection lost'))
        }
        controller.enqueue(chunk.value)
      },
    })
    return new Response(body, { status: response.status, headers: response.headers })
  }
  return { fetch, dropped: () => dropped }
}

describe('relayConversation', () => {
  it('creates a conversation on the first send and restores it in another store', async () => {
    const ids: string[] = []
    const first = onWorker({ onId: (id) => ids.push(id) })
    await first.send('Bonjour 👋')
    const shown = first.getSnapshot()
    expect(shown.status).toBe('ready')
    expect(shown.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(shown.messages[0]?.text).toBe('Bonjour 👋')
    expect(shown.messages[1]?.text).toContain('You said: "Bonjour 👋"')
    expect(ids).toEqual([first.id])

    const second = onWorker({ id: first.id })
    await second.load()
    expect(second.getSnapshot().messages.map((m) => m.text)).toEqual(
      shown.messages.map((m) => m.text),
    )
    // Display turns only: items never reach the browser.
    expect(JSON.stringify(second.getSnapshot().conversation)).not.toContain('"items"')
    first.dispose()
    second.dispose()
  })

  it('resumes a dropped stream from the last event it saw: the whole answer, once', async () => {
    const dropping = droppingFetch(400)
    const store = onWorker({ model: 'test/paced', fetch: dropping.fetch })
    await store.send('Go slowly')
    await vi.waitFor(() => expect(store.getSnapshot().status).toBe('ready'), { timeout: 10_000 })
    expect(dropping.dropped()).toBe(1)
    const answer = store.getSnapshot().messages.at(-1)!
    expect(answer.text).toBe(PACED_TEXT)
    expect(answer.thinking).toBe('Pacing myself. ')
    expect(store.getSnapshot().messages).toHaveLength(2)
    store.dispose()
  })

  it('is stopped from another store: every tab sees the stopped answer', async () => {
    const sender = onWorker({ model: 'test/paced' })
    const sending = sender.send('Go slowly')
    await vi.waitFor(() => expect(sender.getSnapshot().status).toBe('streaming'))
    const other = onWorker({ model: 'test/paced', id: sender.id })
    await other.load()
    // The second store attached to the answer in flight, and stops it for both.
    await vi.waitFor(() => expect(other.getSnapshot().status).toBe('streaming'))
    other.stop()
    await sending
    await vi.waitFor(() => expect(sender.getSnapshot().status).toBe('ready'))
    const last = sender.getSnapshot().conversation.turns.at(-1)
    expect(last).toMatchObject({ role: 'assistant', stopReason: 'aborted' })
    expect((last as { text: string }).text.length).toBeLessThan(PACED_TEXT.length)
    await vi.waitFor(() => expect(other.getSnapshot().status).toBe('ready'))
    expect(other.getSnapshot().conversation.turns.at(-1)).toEqual(last)
    sender.dispose()
    other.dispose()
  })

  it('answers tool calls in the browser and sends the results as a tool turn', async () => {
    const store = onWorker({
      model: 'test/tools',
      maxSteps: 2,
      onToolCall: (call) => `sunny in ${(call.input as { city: string }).city}`,
    })
    await store.send('Weather?')
    const turns = store.getSnapshot().conversation.turns
    expect(turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect((turns[2] as ToolTurn).results[0]).toMatchObject({ output: 'sunny in Paris' })
    store.dispose()
  })

  // Node 20 has no WebSocket of its own: undici's stands in for the browser's.
  for (const over of ['websocket', 'sse'] as const) {
    /** Options that follow over `over`, and how the store followed: the routes it asked. */
    const following = () => {
      const routes: string[] = []
      const fetch: typeof globalThis.fetch = (input, init) => {
        routes.push(new URL(String(input)).pathname.split('/').at(-1)!)
        return globalThis.fetch(input, init)
      }
      const options = { follow: true, followOver: over, WebSocket: UndiciWebSocket, fetch }
      const followedOver = () => {
        const overSocket = routes.includes('ticket')
        return overSocket === routes.includes('stream') ? 'both' : overSocket ? 'websocket' : 'sse'
      }
      return { options, followedOver }
    }

    it(`follows the conversation while idle over ${over}: another tab’s message and answer arrive as they happen`, async () => {
      const writer = onWorker()
      await writer.send('Erste Frage')
      const { options, followedOver } = following()
      const follower = onWorker({ id: writer.id, ...options })
      await follower.load()
      expect(follower.getSnapshot().messages).toHaveLength(2)
      await writer.send('Zweite Frage')
      await followed(follower, 'Zweite Frage')
      expect(followedOver()).toBe(over)
      writer.dispose()
      follower.dispose()
    })

    it(`follows a conversation it created itself over ${over}, once the first send made it`, async () => {
      const { options, followedOver } = following()
      const creator = onWorker(options)
      await creator.send('Mine')
      const other = onWorker({ id: creator.id })
      await other.load()
      await other.send('From elsewhere')
      await followed(creator, 'From elsewhere')
      expect(followedOver()).toBe(over)
      creator.dispose()
      other.dispose()
    })
  }

  it('follows over a socket, resumed with a new ticket from the last event it saw after a drop', async () => {
    const writer = onWorker()
    await writer.send('Erste Frage')
    const sockets: UndiciWebSocket[] = []
    const opened: string[] = []
    class Recorded extends UndiciWebSocket {
      constructor(url: string) {
        super(url)
        sockets.push(this)
        opened.push(url)
      }
    }
    const tickets: number[] = []
    const recording: typeof globalThis.fetch = async (input, init) => {
      const response = await globalThis.fetch(input, init)
      if (String(input).endsWith('/ticket')) tickets.push(response.status)
      return response
    }
    const { lastEventId } = await stored(writer.id!)
    const follower = onWorker({
      id: writer.id,
      follow: true,
      WebSocket: Recorded,
      fetch: recording,
    })
    await follower.load()
    await vi.waitFor(() => expect(sockets[0]?.readyState).toBe(UndiciWebSocket.OPEN))
    await writer.send('Zweite Frage')
    await followed(follower, 'Zweite Frage')
    // The connection drops (the follower did not ask): it comes back from the last event it saw.
    const seen = (await stored(writer.id!)).lastEventId
    sockets[0]!.close()
    await vi.waitFor(() => expect(sockets[1]?.readyState).toBe(UndiciWebSocket.OPEN))
    expect(tickets).toEqual([200, 200])
    expect(opened.map((url) => new URL(url).searchParams.get('lastEventId'))).toEqual([
      String(lastEventId),
      String(seen),
    ])
    expect(opened.every((url) => url.startsWith('ws://'))).toBe(true)
    await writer.send('Dritte Frage')
    await vi.waitFor(() => {
      const texts = follower.getSnapshot().messages.map((m) => m.text)
      expect(texts).toHaveLength(6)
      expect(texts[5]).toContain('You said: "Dritte Frage"')
      expect(follower.getSnapshot().status).toBe('ready')
    })
    // Each answer once, as the relay stores the conversation.
    expect(follower.getSnapshot().conversation).toEqual((await stored(writer.id!)).conversation)
    follower.dispose()
    writer.dispose()
    await vi.waitFor(() => expect(sockets[1]!.readyState).toBe(UndiciWebSocket.CLOSED))
  })

  it('shows another tab’s exchange its follow stream had not brought when it sent its own', async () => {
    const writer = onWorker()
    await writer.send('Erste Frage')
    const lagging = laggingFollow()
    const follower = onWorker({
      id: writer.id,
      follow: true,
      followOver: 'sse',
      fetch: lagging.fetch,
    })
    await follower.load()
    await writer.send('Zweite Frage')
    // Not brought yet: the follower is ready, and the relay answers its message at once.
    expect(follower.getSnapshot().messages).toHaveLength(2)
    await follower.send('Dritte Frage')
    lagging.release()
    const { conversation } = await stored(writer.id!)
    await vi.waitFor(() => {
      expect(follower.getSnapshot().conversation).toEqual(conversation)
      expect(follower.getSnapshot().status).toBe('ready')
    })
    const texts = follower.getSnapshot().messages.map((m) => m.text)
    expect(texts.filter((_, i) => i % 2 === 0)).toEqual([
      'Erste Frage',
      'Zweite Frage',
      'Dritte Frage',
    ])
    writer.dispose()
    follower.dispose()
  })

  it('sends the model given to update() with the next message', async () => {
    const models: unknown[] = []
    const recording: typeof globalThis.fetch = async (input, init) => {
      if (String(input).endsWith('/messages')) {
        const body: unknown = JSON.parse(String(init?.body))
        models.push((body as { model: unknown }).model)
      }
      return globalThis.fetch(input, init)
    }
    const store = onWorker({ fetch: recording })
    await store.send('First')
    store.update({ model: 'test/paced' })
    await store.send('Second')
    expect(models).toEqual(['mock/echo', 'test/paced'])
    expect(store.getSnapshot().messages.at(-1)?.text).toBe(PACED_TEXT)
    store.dispose()
  })

  it('keeps a message the relay refused on screen, sends it again on regenerate(), and gives it back on dismiss()', async () => {
    let refusals = 2
    const refusing: typeof globalThis.fetch = async (input, init) => {
      if (String(input).endsWith('/messages') && refusals-- > 0) {
        const error = { error: { kind: 'overloaded', message: 'the model is busy' } }
        return Response.json(error, { status: 503 })
      }
      return globalThis.fetch(input, init)
    }
    const store = onWorker({ fetch: refusing })
    await store.send('Are you there?')
    let shown = store.getSnapshot()
    expect(shown.status).toBe('error')
    expect(shown.error).toMatchObject({ kind: 'overloaded' })
    expect(shown.messages.map((m) => [m.role, m.text])).toEqual([['user', 'Are you there?']])
    expect(shown.conversation.turns).toEqual([])

    await store.regenerate()
    expect(store.getSnapshot().status).toBe('error')
    expect(store.getSnapshot().messages).toHaveLength(1)
    await store.regenerate()
    shown = store.getSnapshot()
    expect(shown.status).toBe('ready')
    expect(shown.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(shown.messages[1]?.text).toContain('You said: "Are you there?"')

    refusals = 1
    await store.send('Still there?')
    expect(store.getSnapshot().messages).toHaveLength(3)
    expect(store.dismiss()).toEqual({ role: 'user', content: 'Still there?' })
    shown = store.getSnapshot()
    expect(shown.status).toBe('ready')
    expect(shown.error).toBeUndefined()
    expect(shown.messages).toHaveLength(2)
    // Nothing of it reached the relay.
    const restored = onWorker({ id: store.id })
    await restored.load()
    expect(restored.getSnapshot().conversation.turns).toHaveLength(2)
    store.dispose()
    restored.dispose()
  })
  describe('with the Worker’s save_note, which waits for approval', () => {
    /** A store whose message names save_note, and another on the same conversation, following it. */
    async function askToSave(text: string) {
      const store = onWorker({ options: { serverTools: ['save_note'] } })
      await store.send(`save_note: ${text}`)
      const other = onWorker({ id: store.id, follow: true, followOver: 'sse' })
      await other.load()
      return { store, other }
    }

    it('is approved in one store, which reads the loop going on, and a store that follows sees it', async () => {
      const { store, other } = await askToSave('buy milk')
      const [approval] = store.getSnapshot().pending?.approvals ?? []
      expect(approval).toMatchObject({ name: 'save_note', input: { text: expect.any(String) } })
      expect(other.getSnapshot().pending?.approvals).toEqual([approval])
      await store.approve(approval!.approvalId)
      for (const tab of [store, other]) {
        await vi.waitFor(() => {
          const { conversation, pending, status } = tab.getSnapshot()
          expect(conversation.turns.map((t) => t.role)).toEqual([
            'user',
            'assistant',
            'tool',
            'assistant',
          ])
          expect(status).toBe('ready')
          expect(pending?.approvals).toEqual([])
        })
      }
      const [, asks, tools, answer] = store.getSnapshot().conversation.turns
      expect((tools as ToolTurn).results).toMatchObject([
        { output: expect.stringMatching(/^saved: /) },
      ])
      expect(store.getSnapshot().messages[1]?.toolCalls[0]?.result).toMatchObject({
        output: expect.stringMatching(/^saved: /),
      })
      expect(asks).toMatchObject({ stopReason: 'tool-calls' })
      expect(answer).toMatchObject({ text: expect.stringContaining('saved: ') })
      // Decided: a second decision is refused, and says why.
      await other.approve(approval!.approvalId)
      expect(other.getSnapshot().error?.message).toMatch(/decided already/)
      store.dispose()
      other.dispose()
    })

    it('is answered as stopped by a stop, and a store that follows shows the stored tool turn', async () => {
      const { store, other } = await askToSave('paint the fence')
      const id = store.id!
      const stop = await worker.fetch(`/v1/conversations/${id}/stop`, {
        method: 'POST',
        headers,
      })
      expect(stop.status).toBe(204)
      const held = (await stored(id)).conversation as { turns: { role: string }[] }
      expect(held.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool'])
      // The tool turn the stop stored reaches the store that follows, and nothing waits.
      await vi.waitFor(() => {
        const { conversation, pending, status } = other.getSnapshot()
        expect(conversation).toEqual(held)
        expect(pending?.approvals).toEqual([])
        expect(status).toBe('ready')
      })
      store.dispose()
      other.dispose()
    })

    it('is stopped from the store that waits on it: both stores show the tool turn the stop stored', async () => {
      const { store, other } = await askToSave('wash the car')
      expect(store.getSnapshot().status).toBe('ready')
      // No stream is open while the approval waits: stop() stops the loop on the relay all the same.
      store.stop()
      for (const tab of [store, other]) {
        await vi.waitFor(() => {
          const { conversation, pending, status } = tab.getSnapshot()
          expect(conversation.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool'])
          expect(pending?.approvals).toEqual([])
          expect(status).toBe('ready')
        })
      }
      const held = (await stored(store.id!)).conversation
      expect(store.getSnapshot().conversation).toEqual(held)
      expect(store.getSnapshot().messages[1]?.toolCalls[0]?.result).toMatchObject({
        isError: true,
        output: expect.stringMatching(/stopped/),
      })
      // Nothing waits: the conversation goes on.
      await store.send('Next')
      expect(store.getSnapshot().conversation.turns).toHaveLength(5)
      expect(store.getSnapshot().error).toBeUndefined()
      store.dispose()
      other.dispose()
    })

    it('shows what waits in a store resumed from before what the relay keeps, which can approve it', async () => {
      const store = onWorker()
      await store.send('Hello')
      const cut = cutFollow()
      const other = onWorker({ id: store.id, follow: true, followOver: 'sse', fetch: cut.fetch })
      await other.load()
      const { lastEventId } = await stored(store.id!)
      // The other store's follow stream drops; two answers later (the log keeps the last one's
      // events only) its resume reaches the relay, whose loop now waits on an approval.
      cut.drop()
      await store.send('Hello again')
      await store.send('save_note: water the plants', { serverTools: ['save_note'] })
      const [approval] = store.getSnapshot().pending?.approvals ?? []
      expect(approval).toMatchObject({ name: 'save_note' })
      expect(other.getSnapshot().pending?.approvals).toEqual([])
      cut.restore()
      await vi.waitFor(() => expect(other.getSnapshot().pending?.approvals).toEqual([approval]))
      expect(cut.resumedFrom()[0]).toBe(String(lastEventId))
      expect(other.getSnapshot().conversation).toEqual((await stored(store.id!)).conversation)
      // Offered there, the approval is decided there: the loop goes on, which that store follows.
      await other.approve(approval!.approvalId)
      await vi.waitFor(() => {
        const { conversation, pending, status } = other.getSnapshot()
        expect(conversation.turns.map((t) => t.role).slice(-4)).toEqual([
          'user',
          'assistant',
          'tool',
          'assistant',
        ])
        expect(pending?.approvals).toEqual([])
        expect(status).toBe('ready')
      })
      expect(other.getSnapshot().error).toBeUndefined()
      store.dispose()
      other.dispose()
    })

    it('is denied with a reason: the model reads the denial, and nothing is saved', async () => {
      const { store, other } = await askToSave('sell the car')
      const [approval] = store.getSnapshot().pending?.approvals ?? []
      await store.deny(approval!.approvalId, 'not today')
      await vi.waitFor(() => {
        expect(store.getSnapshot().conversation.turns).toHaveLength(4)
        expect(store.getSnapshot().status).toBe('ready')
      })
      const result = (store.getSnapshot().conversation.turns[2] as ToolTurn).results[0]
      expect(result).toMatchObject({ isError: true, output: expect.stringContaining('not today') })
      await vi.waitFor(() => expect(other.getSnapshot().pending?.approvals).toEqual([]))
      store.dispose()
      other.dispose()
    })
  })

  it('shows each turn of a step once in a store resumed from before what the relay keeps while its server tool runs', async () => {
    // The other store's resume reaches the relay while the probe the model called runs.
    const { store, other, cut, lastEventId } = await oneBehind()
    const runs = probe.runs
    const asking = store.send('Run probe now', { serverTools: ['probe'] })
    await vi.waitFor(() => expect(probe.runs).toBe(runs + 1))
    cut.restore()
    await vi.waitFor(() => expect(other.getSnapshot().status).toBe('streaming'))
    expect(cut.resumedFrom()[0]).toBe(String(lastEventId))
    answerProbes()
    await asking
    await vi.waitFor(() => expect(other.getSnapshot().status).toBe('ready'), { timeout: 20_000 })
    const held = await stored(store.id!)
    expect(store.getSnapshot().conversation).toEqual(held.conversation)
    expect(other.getSnapshot().messages.map((m) => m.text)).toEqual(
      store.getSnapshot().messages.map((m) => m.text),
    )
    expect(other.getSnapshot().conversation).toEqual(held.conversation)
    store.dispose()
    other.dispose()
  })

  describe('with versions, a queue and a title', () => {
    /** What a store shows: each message's text (its start), and `index/count` with versions. */
    const shown = (store: ReturnType<typeof onWorker>) =>
      store
        .getSnapshot()
        .messages.map((m) =>
          m.branch
            ? `${m.text.slice(0, 24)} [${m.branch.index}/${m.branch.count}]`
            : m.text.slice(0, 24),
        )

    it('keeps regenerated answers a version away and pages back to the first, in every store', async () => {
      const store = onWorker({ follow: true, followOver: 'sse' })
      await store.send('Tell me a joke')
      const first = store.getSnapshot().conversation.turns[1]
      const other = onWorker({ id: store.id, follow: true, followOver: 'sse' })
      await other.load()
      await store.regenerate()
      await store.regenerate()
      const answer = 'You said: "Tell me a jok'
      expect(shown(store)).toEqual(['Tell me a joke', `${answer} [2/3]`])
      await store.selectBranch(1, 0)
      for (const tab of [store, other]) {
        await vi.waitFor(() => expect(shown(tab)).toEqual(['Tell me a joke', `${answer} [0/3]`]))
      }
      // The first answer itself, as the relay stored it.
      const { conversation } = await stored(store.id!)
      expect(conversation).toEqual(store.getSnapshot().conversation)
      expect(store.getSnapshot().conversation.turns[1]).toEqual({
        ...first,
        branch: { index: 0, count: 3 },
      })
      store.dispose()
      other.dispose()
    })

    it('edits the first question: the model gets the edited question alone', async () => {
      const store = onWorker({ model: 'test/replay' })
      await store.send('First question')
      await store.send('Second question')
      await store.edit(0, 'First, edited')
      const { messages } = store.getSnapshot()
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant'])
      expect(messages[0]).toMatchObject({ text: 'First, edited', branch: { index: 1, count: 2 } })
      // `test/replay` answers with the request it got: the edited question and nothing else.
      expect(JSON.parse(messages[1]!.text)).toEqual([{ role: 'user', content: 'First, edited' }])
      store.dispose()
    })

    /**
     * `change` starts a paced answer from a store while another is behind (see `oneBehind`), and
     * the other store's resume reaches the relay while it streams. Resolves once both show its end.
     */
    async function resumedDuring(change: (store: ReturnType<typeof onWorker>) => Promise<void>) {
      const { store, other, cut, lastEventId } = await oneBehind()
      gate.hold()
      store.update({ model: 'gated/paced' })
      const changing = change(store)
      await gate.sendUntil((sent) => sent.text.length > 8)
      cut.restore()
      await vi.waitFor(() => expect(other.getSnapshot().status).toBe('streaming'))
      expect(cut.resumedFrom()[0]).toBe(String(lastEventId))
      gate.open()
      await changing
      await vi.waitFor(() => expect(other.getSnapshot().status).toBe('ready'), { timeout: 20_000 })
      return { store, other, held: await stored(store.id!) }
    }

    /** The start of the mock's answer to `question`, as `shown` clips it. */
    const said = (question: string) => `You said: "${question}". I am`.slice(0, 24)

    it.each([
      {
        change: "a regenerate's answer in place of the old one",
        make: (page: ReturnType<typeof onWorker>) => page.regenerate(),
        all: [
          'Tell me a joke',
          said('Tell me a joke'),
          'Another',
          said('Another'),
          'And one more',
          `${PACED_TEXT.slice(0, 24)} [1/2]`,
        ],
      },
      {
        change: "an edit's question and answer in place of what they replace",
        make: (page: ReturnType<typeof onWorker>) => page.edit(2, 'Another, edited'),
        all: [
          'Tell me a joke',
          said('Tell me a joke'),
          'Another, edited [1/2]',
          PACED_TEXT.slice(0, 24),
        ],
      },
    ])(
      'shows $change in a store resumed from before what the relay keeps',
      async ({ make, all }) => {
        const { store, other, held } = await resumedDuring(make)
        expect(shown(store)).toEqual(all)
        expect(shown(other)).toEqual(all)
        expect(other.getSnapshot().conversation).toEqual(held.conversation)
        store.dispose()
        other.dispose()
      },
    )

    it('queues three messages sent from two stores during one answer, and answers them in order', async () => {
      gate.hold()
      const first = onWorker({ model: 'gated/paced', follow: true, followOver: 'sse' })
      const sending = first.send('One')
      await gate.sendUntil((sent) => sent.text.length > 8)
      const second = onWorker({ id: first.id, follow: true, followOver: 'sse' })
      await second.load()
      await vi.waitFor(() => expect(second.getSnapshot().status).toBe('streaming'))
      await second.send('Two')
      await first.send('Three')
      await second.send('Four')
      for (const tab of [first, second]) {
        await vi.waitFor(() =>
          expect(tab.getSnapshot().queue.map((turn) => turn.content)).toEqual([
            'Two',
            'Three',
            'Four',
          ]),
        )
        expect(tab.getSnapshot().error).toBeUndefined()
        expect(tab.getSnapshot().status).toBe('streaming')
      }
      gate.open()
      await sending
      for (const tab of [first, second]) {
        await vi.waitFor(
          () => {
            const { messages, queue, status } = tab.getSnapshot()
            expect(messages.filter((m) => m.role === 'user').map((m) => m.text)).toEqual([
              'One',
              'Two',
              'Three',
              'Four',
            ])
            expect(messages.map((m) => m.role)).toEqual(
              Array.from({ length: 4 }, () => ['user', 'assistant']).flat(),
            )
            expect(queue).toEqual([])
            expect(status).toBe('ready')
          },
          { timeout: 20_000 },
        )
      }
      // Each answered by the model its sender named, in order.
      const { turns } = first.getSnapshot().conversation
      expect((turns[3] as { text: string }).text).toContain('You said: "Two"')
      expect((turns[5] as { text: string }).text).toBe(PACED_TEXT)
      expect((turns[7] as { text: string }).text).toContain('You said: "Four"')
      first.dispose()
      second.dispose()
    })

    it('clears the queue from a store that does not follow; the answer in flight goes on', async () => {
      gate.hold()
      const store = onWorker({ model: 'gated/paced' })
      const sending = store.send('One')
      await gate.sendUntil((sent) => sent.text.length > 8)
      await store.send('Two')
      await vi.waitFor(() => expect(store.getSnapshot().queue).toHaveLength(1))
      await store.clearQueue()
      await vi.waitFor(() => expect(store.getSnapshot().queue).toEqual([]))
      gate.open()
      await sending
      expect(store.getSnapshot().messages.map((m) => m.text)).toEqual(['One', PACED_TEXT])
      expect((await stored(store.id!)).conversation).toEqual(store.getSnapshot().conversation)
      store.dispose()
    })

    it('renames its conversation, which the list shows', async () => {
      const store = onWorker()
      await store.send('A question to name')
      await store.rename('Named by hand')
      expect(store.getSnapshot().error).toBeUndefined()
      const response = await worker.fetch('/v1/conversations', { headers })
      const { conversations } = (await response.json()) as {
        conversations: { id: string; title: string }[]
      }
      expect(conversations.find((c) => c.id === store.id)?.title).toBe('Named by hand')
      store.dispose()
    })
  })
})
