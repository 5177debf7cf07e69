import { describe, expect, it } from 'vitest'
import type { Turn } from '../../src/core/conversation.ts'
import { mock, type MockCall } from '../../src/providers/mock/index.ts'
import { cutFollow, laggingFollow } from '../helpers/cut-follow.ts'
import { eventually } from '../helpers/eventually.ts'
import { memoryHosts } from '../helpers/memory-hosts.ts'
import { memoryRelay, storesOn } from '../helpers/memory-relay.ts'
import { gate } from '../relay/conversations/agent-world.ts'
import { RELAY_URL } from './helpers.ts'

// Versions and the queue of a durable conversation (DESIGN §14) as `relayConversation()` shows
// them, against the conversation host in Node (SQLite in memory) behind `createRelay`, as the
// Worker serves it: regenerate and edit keep what they replace a `branch` away, a switch shows
// another version, messages sent during an answer wait in `queue` and go in order, and a title.

const TOKEN = 'token-conversation-branches-0123'

/** The user texts of the conversation a model call got, in order. */
const asked = (call: MockCall) =>
  call.conversation.turns.flatMap((turn) => (turn.role === 'user' ? [String(turn.content)] : []))

/**
 * A relay whose conversations run in hosts on SQLite in memory, routed as the Worker routes them.
 * `test/seen` answers with the user texts it got (`Seen: a | b`), at once; `test/slow` the same,
 * a letter at a time as its call's gate lets it (`letters(i).open(n)`, call `i` from 0);
 * `test/broken` fails after its first delta.
 */
function world() {
  const seen = mock({
    provider: 'test',
    model: 'seen',
    script: (call) => ({ text: `Seen: ${asked(call).join(' | ')}` }),
  })
  const gates: ReturnType<typeof gate>[] = []
  const letters = (call: number) => (gates[call] ??= gate())
  const slow = mock({
    provider: 'test',
    model: 'slow',
    script: (call) => ({ text: `Slow: ${asked(call).at(-1)}` }),
    chunkSize: 1,
    pace: ({ call }) => letters(call.index).wait(),
  })
  const broken = mock({
    provider: 'test',
    model: 'broken',
    script: [{ text: 'half of it', fail: { kind: 'server', afterEvents: 1 } }],
  })
  const hosts = memoryHosts({ providers: { test: [seen, slow, broken] } })
  const relay = memoryRelay(hosts, TOKEN)
  const headers = { authorization: `Bearer ${TOKEN}` }
  /** A store on this relay, on `test/seen` (see `storesOn`). */
  const store = storesOn(relay, TOKEN, 'test/seen')
  /** `GET /v1/conversations` and `/v1/conversations/:id` as the relay answers them. */
  const get = async (path: string) =>
    (await (await relay.fetch(`${RELAY_URL}/v1/conversations${path}`, { headers })).json()) as {
      conversation: { turns: Turn[] }
      lastEventId: number
      queue?: Turn[]
      conversations: { id: string; title: string | null }[]
    }
  return { seen, slow, letters, relay, store, get }
}

type Store = ReturnType<ReturnType<typeof world>['store']>

/** What a store shows: each message's text, and its `index/count` when it has versions. */
const shown = (store: Store) =>
  store
    .getSnapshot()
    .messages.map((m) => (m.branch ? `${m.text} [${m.branch.index}/${m.branch.count}]` : m.text))

/** The texts of the queued messages a store shows. */
const queued = (store: Store) => store.getSnapshot().queue?.map((turn) => turn.content)

/** Waits (looking often, for as long as a busy machine may need) until `check` holds. */
const until = (check: () => boolean, what: string) => eventually(check, what, { ms: 20_000 })

/**
 * `fetch` whose message streams (each message's own answer) wait until `release()`, so that the
 * follow stream runs ahead of them; `streams` lists the `GET .../stream` requests (resumes too).
 */
function holdingAnswers(fetch: typeof globalThis.fetch) {
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const streams: string[] = []
  const holding: typeof globalThis.fetch = async (input, init) => {
    const url = String(input)
    if (url.includes('/stream?')) streams.push(url)
    const response = await fetch(input, init)
    if (!url.endsWith('/messages') || response.status !== 200) return response
    const waits = new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        await released
        controller.enqueue(chunk)
      },
    })
    return new Response(response.body!.pipeThrough(waits), response)
  }
  return { fetch: holding, release, streams }
}

/** Waits until `store` shows `texts` and is ready. */
const shows = (store: Store, texts: string[]) =>
  until(
    () =>
      store.getSnapshot().status === 'ready' &&
      JSON.stringify(shown(store)) === JSON.stringify(texts),
    `the store shows ${JSON.stringify(texts)} (it shows ${JSON.stringify(shown(store))})`,
  )

describe('a conversation store with versions', () => {
  it('keeps each regenerated answer a version away, pages back to the first, and every tab follows', async () => {
    const { store, seen } = world()
    const first = store()
    await first.send('Tell me a joke')
    expect(shown(first)).toEqual(['Tell me a joke', 'Seen: Tell me a joke'])
    const other = store({ id: first.id })
    await other.load()

    await first.regenerate()
    expect(shown(first)).toEqual(['Tell me a joke', 'Seen: Tell me a joke [1/2]'])
    await first.regenerate()
    expect(shown(first)).toEqual(['Tell me a joke', 'Seen: Tell me a joke [2/3]'])
    // Only the question went to the model each time: never an answer it replaces.
    expect(seen.calls.map((call) => call.conversation.turns.length)).toEqual([1, 1, 1])
    await shows(other, ['Tell me a joke', 'Seen: Tell me a joke [2/3]'])

    // The switch comes back as every tab gets it, this one too.
    await first.selectBranch(1, 0)
    expect(first.getSnapshot().error).toBeUndefined()
    await shows(first, ['Tell me a joke', 'Seen: Tell me a joke [0/3]'])
    await shows(other, ['Tell me a joke', 'Seen: Tell me a joke [0/3]'])
    // What goes on goes on under the version shown.
    await first.send('Another')
    expect(shown(first)).toEqual([
      'Tell me a joke',
      'Seen: Tell me a joke [0/3]',
      'Another',
      'Seen: Tell me a joke | Another',
    ])
    first.dispose()
    other.dispose()
  })

  it('edits the first question: the model gets only the edited path, and the old one is a version away', async () => {
    const { store, seen, get } = world()
    const page = store()
    await page.send('First question')
    await page.send('Second question')
    await page.edit(0, 'First, edited')
    expect(shown(page)).toEqual(['First, edited [1/2]', 'Seen: First, edited'])
    expect(seen.calls.at(-1)?.conversation.turns).toEqual([
      { role: 'user', content: 'First, edited' },
    ])
    const held = await get(`/${page.id}`)
    expect(held.conversation).toEqual(page.getSnapshot().conversation)

    // Back to the first version: the conversation goes on under it as it was.
    await page.selectBranch(0, 0)
    await shows(page, [
      'First question [0/2]',
      'Seen: First question',
      'Second question',
      'Seen: First question | Second question',
    ])
    // A later question is edited at its own index: the turns before it stay.
    await page.edit(2, 'Second, edited')
    expect(shown(page)).toEqual([
      'First question [0/2]',
      'Seen: First question',
      'Second, edited [1/2]',
      'Seen: First question | Second, edited',
    ])
    page.dispose()
  })

  it('shows an edit in place as it streams, and the conversation as it was once it fails', async () => {
    const { store } = world()
    const page = store()
    await page.send('Keep me')
    const before = page.getSnapshot().conversation
    page.update({ model: 'test/broken' })
    await page.edit(0, 'Break me')
    expect(page.getSnapshot().status).toBe('error')
    expect(page.getSnapshot().error?.kind).toBe('server')
    // The failed version left nothing: the conversation is what it was, with no versions.
    await until(() => shown(page)[0] === 'Keep me', 'the old question is back')
    expect(page.getSnapshot().conversation).toEqual(before)
    expect(page.getSnapshot().status).toBe('error')
    page.dispose()
  })

  it('keeps the answer a stopped regenerate would have replaced, with the stopped one a version away', async () => {
    const { store, letters } = world()
    const page = store({ model: 'test/slow' })
    letters(0).open(100)
    await page.send('Go slowly')
    const answer = 'Slow: Go slowly'
    expect(shown(page)).toEqual(['Go slowly', answer])

    const regenerating = page.regenerate()
    letters(1).open(3)
    await until(() => shown(page)[1] === 'Slo', 'the new answer streams in its place')
    expect(page.getSnapshot().status).toBe('streaming')
    page.stop()
    await regenerating
    await shows(page, ['Go slowly', `${answer} [0/2]`])
    page.dispose()
  })

  it('regenerates from a tab whose follow stream lags: it shows the exchange it had not read, once', async () => {
    const { store, relay, get } = world()
    const first = store()
    await first.send('One')
    const lagging = laggingFollow(relay.fetch)
    const other = store({ id: first.id, fetch: lagging.fetch })
    await other.load()
    await first.send('Two')
    // The other tab has not been brought the second exchange; the relay regenerates its answer.
    expect(shown(other)).toEqual(['One', 'Seen: One'])
    await other.regenerate()
    lagging.release()
    const all = ['One', 'Seen: One', 'Two', 'Seen: One | Two [1/2]']
    await shows(other, all)
    expect(other.getSnapshot().conversation).toEqual((await get(`/${first.id}`)).conversation)
    await shows(first, all)
    first.dispose()
    other.dispose()
  })

  /**
   * A tab (`other`) whose follow stream drops after the first exchange; two answers later (the
   * log keeps the last one's events only) `change` starts a slow answer from the first tab, and
   * the other tab's resume reaches the relay while it streams.
   */
  async function resumedDuring(change: (first: Store) => Promise<void>) {
    const { store, letters, relay, get } = world()
    const first = store()
    await first.send('Tell me a joke')
    const cut = cutFollow(relay.fetch)
    const other = store({ id: first.id, fetch: cut.fetch })
    await other.load()
    const { lastEventId } = await get(`/${first.id}`)
    cut.drop()
    await first.send('Another')
    await first.send('And one more')
    first.update({ model: 'test/slow' })
    const changing = change(first)
    letters(0).open(3)
    await until(() => first.getSnapshot().status === 'streaming', 'the new answer streams')
    cut.restore()
    await until(() => other.getSnapshot().status === 'streaming', 'the other tab resumes')
    expect(cut.resumedFrom()[0]).toBe(String(lastEventId))
    letters(0).open(100)
    await changing
    await until(() => other.getSnapshot().status === 'ready', 'the other tab reads the end')
    const held = await get(`/${first.id}`)
    return { first, other, held }
  }

  it.each([
    {
      change: "a regenerate's answer in place of the old one",
      make: (page: Store) => page.regenerate(),
      all: [
        'Tell me a joke',
        'Seen: Tell me a joke',
        'Another',
        'Seen: Tell me a joke | Another',
        'And one more',
        'Slow: And one more [1/2]',
      ],
    },
    {
      change: "an edit's question and answer in place of what they replace",
      make: (page: Store) => page.edit(2, 'Another, edited'),
      all: [
        'Tell me a joke',
        'Seen: Tell me a joke',
        'Another, edited [1/2]',
        'Slow: Another, edited',
      ],
    },
  ])('shows $change in a tab resumed from before what the relay keeps', async ({ make, all }) => {
    const { first, other, held } = await resumedDuring(make)
    expect(shown(first)).toEqual(all)
    expect(shown(other)).toEqual(all)
    expect(other.getSnapshot().conversation).toEqual(held.conversation)
    first.dispose()
    other.dispose()
  })

  it('shows a switch in a store that does not follow, once it has read it', async () => {
    const { store } = world()
    const page = store({ follow: false })
    await page.send('Once')
    await page.regenerate()
    await page.selectBranch(1, 0)
    await shows(page, ['Once', 'Seen: Once [0/2]'])
    page.dispose()
  })

  it('refuses an index that names no message, as the store’s error', async () => {
    const { store } = world()
    const page = store()
    await page.send('Only one')
    await page.selectBranch(5, 0)
    expect(page.getSnapshot().error?.message).toMatch(/turn/)
    expect(page.getSnapshot().status).toBe('ready')
    expect(shown(page)).toEqual(['Only one', 'Seen: Only one'])
    page.dispose()
  })
})

describe('a conversation store whose messages are queued', () => {
  it('shows three messages sent from two tabs during one answer as queued, then answers them in order', async () => {
    const { store, letters, slow } = world()
    const first = store({ model: 'test/slow' })
    const sending = first.send('One')
    letters(0).open(2)
    await until(() => shown(first)[1] === 'Sl', 'the first answer streams')
    const second = store({ model: 'test/slow', id: first.id })
    await second.load()
    await until(() => second.getSnapshot().status === 'streaming', 'the second tab attaches')

    // Sent while the answer runs: no error, and no change to what streams.
    await second.send('Two')
    await first.send('Three')
    await second.send('Four')
    for (const tab of [first, second]) {
      await until(() => queued(tab)?.length === 3, 'every message shows as queued')
      expect(queued(tab)).toEqual(['Two', 'Three', 'Four'])
      expect(tab.getSnapshot().error).toBeUndefined()
      expect(tab.getSnapshot().status).toBe('streaming')
      expect(shown(tab)).toEqual(['One', 'Sl'])
    }

    for (let call = 0; call < 4; call++) letters(call).open(100)
    await sending
    const all = ['One', 'Two', 'Three', 'Four'].flatMap((text) => [text, `Slow: ${text}`])
    await shows(first, all)
    await shows(second, all)
    expect(queued(first)).toEqual([])
    // One at a time, in order, each with what came before it.
    expect(slow.calls.map((call) => asked(call).at(-1))).toEqual(['One', 'Two', 'Three', 'Four'])
    expect(slow.calls.map((call) => call.conversation.turns.length)).toEqual([1, 3, 5, 7])
    first.dispose()
    second.dispose()
  })

  it("reads on when its answer's own stream ends after the follow stream began the next queued answer", async () => {
    // The follow stream (a socket in a browser) may run ahead of the message's own stream: here
    // the first answer's own stream is held until the second answer has begun.
    const { store, letters, relay } = world()
    const held = holdingAnswers(relay.fetch)
    const page = store({ model: 'test/slow', fetch: held.fetch })
    const sending = page.send('One')
    letters(0).open(2)
    await until(() => shown(page)[1] === 'Sl', 'the first answer streams')
    await page.send('Two')
    await page.send('Three')
    await until(() => queued(page)?.length === 2, 'both show as queued')
    letters(0).open(100)
    await until(
      () => shown(page)[2] === 'Two' && queued(page)?.join() === 'Three',
      'the second answer begins on the follow stream',
    )

    // The first answer's own stream comes at last, and ends at its `done`: nothing to resume.
    held.release()
    await sending
    expect(page.getSnapshot().reconnecting).toBe(false)
    letters(1).open(100)
    letters(2).open(100)
    await shows(
      page,
      ['One', 'Two', 'Three'].flatMap((text) => [text, `Slow: ${text}`]),
    )
    expect(queued(page)).toEqual([])
    // One follow stream throughout, which brought every queue change.
    expect(held.streams).toEqual([expect.stringMatching(/\/stream\?follow=true$/)])
    page.dispose()
  })

  it('sends nothing more while the first send makes the conversation: one conversation', async () => {
    const { store, relay } = world()
    const page = store()
    const sending = page.send('First')
    await page.send('Too soon')
    await sending
    expect(shown(page)).toEqual(['First', 'Seen: First'])
    const creates = relay.requests.filter(
      (request) =>
        request.method === 'POST' && new URL(request.url).pathname === '/v1/conversations',
    )
    expect(creates).toHaveLength(1)
    page.dispose()
  })

  it('reads the answer to its queued message in a store that does not follow', async () => {
    const { store, letters } = world()
    const page = store({ model: 'test/slow', follow: false })
    const sending = page.send('One')
    letters(0).open(1)
    await until(() => page.getSnapshot().status === 'streaming', 'the answer streams')
    await page.send('Two')
    await until(() => queued(page)?.length === 1, 'the message shows as queued')
    letters(0).open(100)
    letters(1).open(100)
    await sending
    await shows(page, ['One', 'Slow: One', 'Two', 'Slow: Two'])
    expect(queued(page)).toEqual([])
    page.dispose()
  })

  it('clears the queue in every tab; the answer in flight goes on, and nothing more is asked', async () => {
    const { store, letters, slow, get } = world()
    const first = store({ model: 'test/slow' })
    const sending = first.send('One')
    letters(0).open(1)
    await until(() => first.getSnapshot().status === 'streaming', 'the answer streams')
    const second = store({ id: first.id })
    await second.load()
    await first.send('Two')
    await second.send('Three')
    await until(() => queued(second)?.length === 2, 'both show as queued')

    await second.clearQueue()
    for (const tab of [first, second]) {
      await until(() => queued(tab)?.length === 0, 'the queue is empty in every tab')
    }
    expect(first.getSnapshot().status).toBe('streaming')
    letters(0).open(100)
    await sending
    await shows(first, ['One', 'Slow: One'])
    expect((await get(`/${first.id}`)).queue).toBeUndefined()
    expect(slow.calls).toHaveLength(1)
    first.dispose()
    second.dispose()
  })

  it('says why a message sent during an answer was refused, and the answer goes on', async () => {
    const { store, letters } = world()
    const page = store({ model: 'test/slow' })
    const sending = page.send('One')
    letters(0).open(1)
    await until(() => page.getSnapshot().status === 'streaming', 'the answer streams')
    page.update({ model: 'nobody/none' })
    await page.send('Two')
    expect(page.getSnapshot().error?.message).toMatch(/nobody\/none/)
    expect(page.getSnapshot().status).toBe('streaming')
    expect(queued(page)).toEqual([])
    letters(0).open(100)
    await sending
    expect(shown(page)).toEqual(['One', 'Slow: One'])
    // Dismissed, the error goes; nothing was left to send again.
    expect(page.dismiss()).toBeUndefined()
    expect(page.getSnapshot().error).toBeUndefined()
    page.dispose()
  })
})

describe('a conversation store’s title', () => {
  it('renames its conversation, which the list shows; a bad title is its error', async () => {
    const { store, get } = world()
    const page = store()
    await page.send('What the list says first')
    const listed = async () =>
      (await get('')).conversations.find((c) => c.id === page.id)?.title ?? null
    expect(await listed()).toBe('What the list says first')
    await page.rename('Jokes, mostly')
    expect(page.getSnapshot().error).toBeUndefined()
    expect(await listed()).toBe('Jokes, mostly')

    await page.rename(' \n ')
    expect(page.getSnapshot().error?.message).toMatch(/title/)
    expect(page.getSnapshot().status).toBe('ready')
    expect(await listed()).toBe('Jokes, mostly')
    page.dispose()
  })
})
