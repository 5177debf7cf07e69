/**
 * Durable conversations (DESIGN §9), in workerd: what an answer costs in row writes, how soon a
 * client that reconnects gets its first missed event (through `wrangler dev`, beside a `GET
 * /v1/models`), the CPU of an answer run in the conversation's object beside the same answer from
 * `/v1/chat` (from a scripted model, and from the Anthropic adapter reading a stand-in API on the
 * loopback), and workerd's resident memory while an object runs a 50 MB answer. Row writes, CPU
 * and memory use the test Worker (the deployed one plus scripted models and a route that reads an
 * object's counters); the reconnect uses the deployed Worker under `wrangler dev`, as
 * `bench/end-to-end.ts` starts it. Run alone: `npx tsx bench/conversations.ts` (`... cpu`: the row
 * writes and the CPU only; `... floor [rounds]`: the row writes and a conversation over its floors
 * only).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createParser } from 'eventsource-parser'
import { ownConnections, startTestWorker, type TestWorker } from '../test/worker/start-worker.ts'
import { workerdChildren } from '../test/load/run-load.ts'
import { modelsRoundTripMs, startWorker } from './end-to-end.ts'
import {
  fmt,
  isMain,
  median,
  middleHalf,
  printTable,
  trimmedMean,
  verdict,
  type Row,
} from './harness.ts'
import { anthropicRecording, startAnthropicUpstream, type Upstream } from './recordings.ts'

const TOKEN = 'bench-token-0123456789abcdef'
/** The settings of the Worker these rows run: scripted models, no rate limits. */
export const VARS = {
  RELAY_TOKENS: TOKEN,
  MOCK_MODELS: 'on',
  MOCK_DELAY_MS: '0',
  RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
  RATE_LIMIT_TOKENS_PER_MINUTE: '0',
  CONVERSATION_MAX_TURNS: '100000',
  // One client makes thousands of conversations here.
  CONVERSATION_MAX_PER_CLIENT: '0',
}
/** The bench's token, as a request sends it. */
export const auth = { authorization: `Bearer ${TOKEN}` }
const RECONNECT_ROUNDS = 25
/**
 * The provider path of the CPU rows: a 1,000-token Anthropic answer (500 thinking and 500 text
 * deltas, one token each), from a stand-in API on the loopback through the Anthropic adapter.
 */
export const PROVIDER_MODEL = 'anthropic/claude-sonnet-5'
const PROVIDER_DELTAS = 500
/** Answers per CPU sample, and samples per path. */
const CPU_BATCH = 20
const CPU_ROUNDS = 30
/** The same for the `floor` rows alone: nine paths, as the whole bench's CPU rows time. */
const FLOOR_BATCH = 20
const FLOOR_ROUNDS = 30
const MIB = 1024 * 1024
/** How often workerd's resident memory is read while the 50 MB answer streams. */
const RSS_EVERY_MS = 20

type Stats = { rowsWritten: number; lastEventId: number; peakHeldChars: number }

/** The stand-in API of the provider rows: the 1,000-token Anthropic answer, for any model. */
export const startProviderUpstream = (): Promise<Upstream> =>
  startAnthropicUpstream({}, anthropicRecording(PROVIDER_DELTAS, PROVIDER_DELTAS))

/** A test Worker with the bench's settings, and its workerd process (whose CPU the rows read). */
export type MeasuredWorker = { worker: TestWorker; pid: number }

/**
 * Starts the test Worker of this tree (or, with `start`, of another checkout) with the bench's
 * settings and `upstream` as its Anthropic API, and finds the workerd process it started.
 */
export function startMeasuredWorker(
  upstream: Upstream,
  start: typeof startTestWorker = startTestWorker,
): Promise<MeasuredWorker> {
  return measuredStart(() =>
    start({ ...VARS, ANTHROPIC_API_KEY: 'bench-key', ANTHROPIC_BASE_URL: upstream.url }),
  )
}

/** Starts a Worker with `start` and finds the workerd process it started (whose CPU is read). */
export async function measuredStart(start: () => Promise<TestWorker>): Promise<MeasuredWorker> {
  const before = workerdChildren()
  const worker = await start()
  const started = workerdChildren().filter((pid) => !before.includes(pid))
  if (started.length !== 1) {
    await worker.dispose()
    throw new Error(`found ${started.length} new workerd processes`)
  }
  return { worker, pid: started[0]! }
}

/** Where a Worker is, and how to call it with the bench's token. */
type Target = { url: string | URL }

function call(on: Target, path: string, body?: unknown, headers: Record<string, string> = {}) {
  // A connection of its own (see `ownConnections`): workerd may close an idle kept-alive one
  // just as it is reused, which failed a round of 40 creates.
  return fetch(new URL(path, on.url), {
    dispatcher: ownConnections,
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      ...auth,
      ...headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  } as RequestInit)
}

/** Creates a conversation; returns its id. */
export async function create(on: Target): Promise<string> {
  const response = await call(on, '/v1/conversations', {})
  if (response.status !== 201) throw new Error(`create answered ${response.status}`)
  return ((await response.json()) as { id: string }).id
}

const USER_TURN = { role: 'user', content: 'Go' }
const message = (model: string) => ({ model, turn: USER_TURN })

/**
 * A floor of the test Worker's object (see its `fetch`), with the two rows a durable answer
 * writes: `route`, `/v1/chat`'s own route run in the object (the goal's floor); `bare`, the least
 * a durable answer can cost (its events written as `/v1/chat` writes them, with no checks).
 */
export type Floor = 'route' | 'bare'

/**
 * Sends a message and reads its answer to the end; returns its length. `floor`: the test Worker's
 * object answers it with that floor instead, `route` given the same turn as a `/v1/chat` body.
 */
export async function answer(
  on: Target,
  id: string,
  model: string,
  floor?: Floor,
): Promise<number> {
  const route = `/v1/conversations/${id}/messages${floor === undefined ? '' : `?floor=${floor}`}`
  const body = floor === 'route' ? { model, conversation: { turns: [USER_TURN] } } : message(model)
  const response = await call(on, route, body)
  if (response.status !== 200) throw new Error(`message answered ${response.status}`)
  return completed(await response.text(), model)
}

/** Asks `/v1/chat` to answer one user turn and reads the answer to the end; returns its length. */
export async function chatAnswer(on: Target, model: string): Promise<number> {
  const response = await call(on, '/v1/chat', {
    model,
    conversation: { turns: [{ role: 'user', content: 'Go' }] },
  })
  if (response.status !== 200) throw new Error(`/v1/chat answered ${response.status}`)
  return completed(await response.text(), model)
}

/** The length of an answer's SSE text, once it is known to end with its `done` event. */
function completed(text: string, model: string): number {
  if (!/\nevent: done\n[^\n]*\n\n$/.test(text)) {
    throw new Error(`the ${model} answer did not end with done: ${text.slice(-200)}`)
  }
  return text.length
}

async function stats(worker: TestWorker, id: string): Promise<Stats> {
  const response = await worker.fetch(`/v1/__test/conversation?id=${id}`)
  return ((await response.json()) as { stats: Stats }).stats
}

/** Waits until the conversation's answer has ended and its object has written what it holds. */
async function settled(on: Target, id: string): Promise<void> {
  for (;;) {
    const shown = (await (await call(on, `/v1/conversations/${id}`)).json()) as {
      streaming: boolean
    }
    if (!shown.streaming) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/**
 * A process's CPU time (every thread) in ms, from each thread's `schedstat` in /proc: nanoseconds
 * on a CPU, where `stat` counts 10 ms ticks (a quarter of a millisecond per answer in a sample).
 */
export function cpuMs(pid: number): number {
  let ns = 0
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0])
    } catch {
      // The thread ended while we looked: its time is gone from the total either way.
    }
  }
  return ns / 1e6
}

/**
 * A process's CPU ticks (every thread) from each thread's `stat`: in user space and in the kernel.
 * Coarse (10 ms ticks), so only their share over many answers is used.
 */
function ticks(pid: number): { user: number; kernel: number } {
  let user = 0
  let kernel = 0
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      // Fields after the command's closing parenthesis: state is 3, utime 14, stime 15.
      const fields = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8')
        .split(') ')[1]!
        .split(' ')
      user += Number(fields[11])
      kernel += Number(fields[12])
    } catch {
      // As in cpuMs.
    }
  }
  return { user, kernel }
}

function rss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match === null ? Number.NaN : Number(match[1]) * 1024
}

const mb = (n: number) => `${(n / MIB).toFixed(1)} MiB`
const signed = (n: number) => `${n < 0 ? '-' : '+'}${mb(Math.abs(n))}`

/** Row writes of one 1,000-event answer (`test/long`: 1,000 text events and a done). */
async function rowWrites(worker: TestWorker, section: string): Promise<Row> {
  const id = await create(worker)
  const before = await stats(worker, id)
  await answer(worker, id, 'test/long')
  await settled(worker, id)
  const after = await stats(worker, id)
  const rows = after.rowsWritten - before.rowsWritten
  const events = after.lastEventId - before.lastEventId
  return {
    section,
    name: `row writes, one ${events.toLocaleString('en')}-event answer`,
    value: `${rows} rows`,
    note: `goal ≤ 25: ${rows <= 25 ? 'ok' : 'MISSED'} (events in batches, the turns, metadata, alarms; from the object's counter)`,
  }
}

/** A path of the CPU rows: one answer, the workerd it runs in, whether it needs a conversation. */
export type TimedPath = {
  worker: TestWorker
  pid: number
  conversation: boolean
  answer(id: string): Promise<unknown>
}

/** Error codes of a connection that went away (Node's, and undici's under `fetch`). */
const DROPPED = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'])

/**
 * Whether a request failed because its connection dropped (`fetch failed`, a body `terminated`,
 * or a reset anywhere in the `cause` chain), rather than because of what it was answered.
 */
export function droppedConnection(error: unknown): boolean {
  let cause = error
  for (let depth = 0; depth < 4 && cause instanceof Error; depth++) {
    const code = 'code' in cause ? cause.code : undefined
    if (typeof code === 'string' && DROPPED.has(code)) return true
    if (cause.message === 'fetch failed' || cause.message === 'terminated') return true
    cause = cause.cause
  }
  return false
}

/**
 * workerd's CPU per answer of each path, per round (the ms of a round's answers of that path over
 * their count). A round runs one answer of each path in turn, `batch` times, each timed alone: a
 * slower moment of the machine weighs on every path alike, where timing a batch of one path at a
 * time let it fall on one of them. Before each turn the conversations it needs are made (creating
 * one is not part of an answer), then it waits `pauseMs` (for what follows those requests in
 * workerd: writes, alarms). Made at the start of a round instead, a conversation waited there
 * while the round ran, and workerd evicts an object idle for 10 s: it was then made again inside
 * its timed answer, and told its client's index it had changed, which a floor answer does not.
 * A first round warms every path up and is left out; `each`, when given, runs every timed answer
 * of the others (`timed`), to measure more around it. A round in which a connection dropped is
 * run again from its start, up to `retries` times, with a line on stderr; its figures are dropped
 * (those `each` took are kept).
 */
export async function cpuRounds(
  paths: readonly TimedPath[],
  {
    rounds,
    batch,
    pauseMs,
    retries = 0,
  }: { rounds: number; batch: number; pauseMs: number; retries?: number },
  each?: (index: number, timed: () => Promise<void>) => Promise<void>,
): Promise<number[][]> {
  const samples = paths.map((): number[] => [])
  const runRound = async (round: number): Promise<number[]> => {
    const spent = paths.map(() => 0)
    for (let i = 0; i < batch; i++) {
      const ids = await Promise.all(
        paths.map((path) => (path.conversation ? create(path.worker) : '')),
      )
      await new Promise((done) => setTimeout(done, pauseMs))
      for (let k = 0; k < paths.length; k++) {
        const index = (k + i + round) % paths.length
        const path = paths[index]!
        const id = ids[index]!
        const timed = async () => {
          const before = cpuMs(path.pid)
          await path.answer(id)
          spent[index]! += cpuMs(path.pid) - before
        }
        await (round > 0 && each !== undefined ? each(index, timed) : timed())
      }
    }
    return spent
  }
  for (let round = 0; round <= rounds; round++) {
    for (let attempt = 1; ; attempt++) {
      try {
        const spent = await runRound(round)
        if (round > 0) spent.forEach((ms, index) => samples[index]!.push(ms / batch))
        break
      } catch (error) {
        if (attempt > retries || !droppedConnection(error)) throw error
        const why = error instanceof Error ? error.message : String(error)
        console.error(
          `round ${round}: a connection dropped (${why}); again, ${attempt} of ${retries}`,
        )
      }
    }
  }
  return samples
}

/**
 * The answers the CPU rows time, by path: from `/v1/chat`, from a conversation, and from each
 * floor (see {@link Floor}), each of `test/tokens` (1,000 text events of 4 characters), of
 * `test/short` (2 events) and of the Anthropic adapter reading a stand-in API.
 */
function cpuPaths(worker: TestWorker) {
  const chat = (model: string) => async () => {
    await chatAnswer(worker, model)
  }
  const inConversation = (model: string, floor?: Floor) => async (id: string) => {
    await answer(worker, id, model, floor)
  }
  return {
    chat: chat('test/tokens'),
    conversation: inConversation('test/tokens'),
    chatShort: chat('test/short'),
    conversationShort: inConversation('test/short'),
    chatProvider: chat(PROVIDER_MODEL),
    conversationProvider: inConversation(PROVIDER_MODEL),
    floor: inConversation('test/tokens', 'route'),
    floorShort: inConversation('test/short', 'route'),
    floorProvider: inConversation(PROVIDER_MODEL, 'route'),
    bareFloor: inConversation('test/tokens', 'bare'),
    bareFloorShort: inConversation('test/short', 'bare'),
    bareFloorProvider: inConversation(PROVIDER_MODEL, 'bare'),
  }
}
type CpuPath = keyof ReturnType<typeof cpuPaths>

/** Whether a path answers in a conversation's object (and needs a conversation made first). */
const inObject = (name: string) => !name.startsWith('chat')

/**
 * The CPU per answer of `names`, per round (see {@link cpuRounds}), and the median ratio of two
 * paths over the rounds with its middle half.
 */
async function timePaths<Name extends CpuPath>(
  worker: TestWorker,
  pid: number,
  names: readonly Name[],
  options: { rounds: number; batch: number },
  each?: (index: number, timed: () => Promise<void>) => Promise<void>,
) {
  const all = cpuPaths(worker)
  const rounds = await cpuRounds(
    names.map((name) => ({ worker, pid, conversation: inObject(name), answer: all[name] })),
    { ...options, pauseMs: 50 },
    each,
  )
  const samples = new Map(names.map((name, i) => [name, rounds[i]!]))
  const of = (name: Name) => samples.get(name)!
  const ratios = (a: Name, b: Name) => of(a).map((value, i) => value / of(b)[i]!)
  return {
    of,
    ms: (name: Name) => `${fmt(median(of(name)))} ms`,
    ratio: (a: Name, b: Name) => median(ratios(a, b)),
    spread: (a: Name, b: Name) => `${middleHalf(ratios(a, b))}x`,
    /** The median over the rounds of `a` minus `b` in the same round. */
    marginal: (a: Name, b: Name) => median(of(a).map((value, i) => value - of(b)[i]!)),
  }
}

/**
 * workerd's CPU per answer from the conversation's object and from `/v1/chat`: `test/tokens`
 * (1,000 text events of 4 characters) and `test/short` (2 events), in batches run in turn.
 */
async function cpuPerAnswer(worker: TestWorker, pid: number, section: string): Promise<Row[]> {
  // The goal's floor alone: the bare one is timed beside it by `overFloor`.
  const names = (Object.keys(cpuPaths(worker)) as CpuPath[]).filter(
    (name) => !name.startsWith('bare'),
  )
  /** Ticks in user space and in the kernel, per path, over the timed rounds. */
  const split = names.map(() => ({ user: 0, kernel: 0 }))
  const { ms, ratio, spread, marginal, of } = await timePaths(
    worker,
    pid,
    names,
    { rounds: CPU_ROUNDS, batch: CPU_BATCH },
    async (index, timed) => {
      const before = ticks(pid)
      await timed()
      const after = ticks(pid)
      split[index]!.user += after.user - before.user
      split[index]!.kernel += after.kernel - before.kernel
    },
  )
  /** The kernel's share of a path's CPU, from its ticks, applied to its median. */
  const kernelShare = (path: CpuPath) => {
    const { user, kernel } = split[names.indexOf(path)]!
    return kernel / (user + kernel)
  }
  const kernelMs = (path: CpuPath) => median(of(path)) * kernelShare(path)
  const userMs = (path: CpuPath) => median(of(path)) * (1 - kernelShare(path))
  const how = `workerd process CPU (every thread's schedstat) around each answer, ${CPU_BATCH} answers of each path a round in turn, median of ${CPU_ROUNDS} rounds; each answer counts its HTTP request and the Worker in front`
  return [
    {
      section,
      name: 'CPU, 1,000-token scripted answer from /v1/chat',
      value: ms('chat'),
      note: how,
    },
    {
      section,
      name: 'CPU, same answer from a conversation',
      value: ms('conversation'),
      note: `${verdict(ratio('conversation', 'chat'), 1.3)} of /v1/chat (goal ≤ 1.3x; middle half of the rounds ${spread('conversation', 'chat')}); adds the hop to the object and its row writes (one SQLite commit)`,
    },
    {
      section,
      name: 'CPU, 1,000-token Anthropic answer: /v1/chat | conversation',
      value: [ms('chatProvider'), ms('conversationProvider')],
      note: `${verdict(ratio('conversationProvider', 'chatProvider'), 1.3)} (goal ≤ 1.3x; middle half ${spread('conversationProvider', 'chatProvider')}); the adapter reading a stand-in API on the loopback, sent at once`,
    },
    {
      section,
      name: 'CPU, the floor of a durable answer: scripted | Anthropic',
      value: [ms('floor'), ms('floorProvider')],
      note: `${fmt(ratio('floor', 'chat'))}x and ${fmt(ratio('floorProvider', 'chatProvider'))}x of /v1/chat: its own route run in the object, one row written before the model call and one before done (the hop and the commits, which no durable answer avoids); the conversation costs ${fmt(ratio('conversation', 'floor'))}x and ${fmt(ratio('conversationProvider', 'floorProvider'))}x of it`,
    },
    {
      section,
      name: 'CPU, 2-event answer: /v1/chat | floor | conversation',
      value: [ms('chatShort'), ms('floorShort'), ms('conversationShort')],
      note: `${fmt(ratio('floorShort', 'chatShort'))}x and ${fmt(ratio('conversationShort', 'chatShort'))}x of /v1/chat: the cost of a message whatever its length`,
    },
    {
      section,
      name: 'CPU of 998 more events: /v1/chat | floor | conversation',
      value: [
        `${fmt(marginal('chat', 'chatShort'))} ms`,
        `${fmt(marginal('floor', 'floorShort'))} ms`,
        `${fmt(marginal('conversation', 'conversationShort'))} ms`,
      ],
      note: 'the per-event part (1,000-token answer minus the 2-event one, same round)',
    },
    {
      section,
      name: 'of the scripted answer, in the kernel: /v1/chat | conversation',
      value: [`${fmt(kernelMs('chat'))} ms`, `${fmt(kernelMs('conversation'))} ms`],
      note: `in user space alone the conversation costs ${fmt(userMs('conversation') / userMs('chat'))}x of /v1/chat (Anthropic answer: ${fmt(userMs('conversationProvider') / userMs('chatProvider'))}x); its kernel time is mostly local SQLite writing its WAL to this machine's disk, with an fsync each commit (each thread's user and system ticks over every timed answer, as shares of the medians above)`,
    },
  ]
}

/**
 * A conversation's answer over its floors alone (`npx tsx bench/conversations.ts floor`): the
 * conversation, the goal's floor (`/v1/chat`'s route in the object) and the bare floor (the least a
 * durable answer can cost), for each answer, and the scripted answer split into what a message
 * costs whatever its length (the 2-event answer) and what its events add.
 */
async function overFloor(
  worker: TestWorker,
  pid: number,
  section: string,
  count = FLOOR_ROUNDS,
): Promise<Row[]> {
  const names = [
    'conversation',
    'floor',
    'bareFloor',
    'conversationShort',
    'floorShort',
    'bareFloorShort',
    'conversationProvider',
    'floorProvider',
    'bareFloorProvider',
  ] as const
  type Name = (typeof names)[number]
  const rounds = { rounds: count, batch: FLOOR_BATCH }
  // Each answer's CPU too, beside the rounds' sums: a steadier ratio (see `perAnswer`).
  const answers = names.map((): number[] => [])
  const { ms, ratio, spread, marginal } = await timePaths(
    worker,
    pid,
    names,
    rounds,
    async (index, timed) => {
      const before = cpuMs(pid)
      await timed()
      answers[index]!.push(cpuMs(pid) - before)
    },
  )
  const perEvent = (long: Name, short: Name) => `${fmt(marginal(long, short))} ms`
  /**
   * The ratio of two paths' trimmed means over every timed answer: over three runs the medians of
   * rounds spread over 0.07, this over 0.02.
   */
  const perAnswer = (a: Name, b: Name) =>
    `${fmt(trimmedMean(answers[names.indexOf(a)]!) / trimmedMean(answers[names.indexOf(b)]!))}x`
  /** A conversation's answer over the goal's floor, then over the bare one. */
  const over = (conversation: Name, floor: Name, bare: Name) =>
    `middle half of the rounds ${spread(conversation, floor)}; per answer, 10% trimmed each side, ${perAnswer(conversation, floor)}); ${fmt(ratio(conversation, bare))}x of the bare floor (per answer ${perAnswer(conversation, bare)}), which the floor costs ${fmt(ratio(floor, bare))}x of`
  return [
    {
      section,
      name: 'CPU, 1,000-token scripted answer: bare floor | floor | conversation',
      value: [ms('bareFloor'), ms('floor'), ms('conversation')],
      note: `${verdict(ratio('conversation', 'floor'), 1.1)} of the floor (goal ≤ 1.1x; ${over('conversation', 'floor', 'bareFloor')}; ${FLOOR_BATCH} answers of each path a round in turn, median of ${count} rounds`,
    },
    {
      section,
      name: 'CPU, 1,000-token Anthropic answer: bare floor | floor | conversation',
      value: [ms('bareFloorProvider'), ms('floorProvider'), ms('conversationProvider')],
      note: `${verdict(ratio('conversationProvider', 'floorProvider'), 1.1)} (goal ≤ 1.1x; ${over('conversationProvider', 'floorProvider', 'bareFloorProvider')}`,
    },
    {
      section,
      name: 'CPU, 2-event scripted answer: bare floor | floor | conversation',
      value: [ms('bareFloorShort'), ms('floorShort'), ms('conversationShort')],
      note: `${fmt(ratio('conversationShort', 'floorShort'))}x (${over('conversationShort', 'floorShort', 'bareFloorShort')}: what a message costs whatever its length`,
    },
    {
      section,
      name: 'CPU of 998 more events: bare floor | floor | conversation',
      value: [
        perEvent('bareFloor', 'bareFloorShort'),
        perEvent('floor', 'floorShort'),
        perEvent('conversation', 'conversationShort'),
      ],
      note: 'the per-event part (1,000-token answer minus the 2-event one, same round)',
    },
  ]
}

/** Streams one `test/huge` answer (50 MB) to one client, reading workerd's RSS as it goes. */
async function hugeAnswer(worker: TestWorker, pid: number, id: string) {
  const samples: number[] = []
  const timer = setInterval(() => samples.push(rss(pid)), RSS_EVERY_MS)
  const started = performance.now()
  let bytes = 0
  let events = 0
  try {
    const response = await call(worker, `/v1/conversations/${id}/messages`, message('test/huge'))
    if (response.status !== 200) throw new Error(`message answered ${response.status}`)
    const parser = createParser({ onEvent: () => events++ })
    const decoder = new TextDecoder()
    const reader = response.body!.getReader()
    for (let step = await reader.read(); !step.done; step = await reader.read()) {
      bytes += step.value.byteLength
      parser.feed(decoder.decode(step.value, { stream: true }))
    }
  } finally {
    clearInterval(timer)
  }
  const seconds = (performance.now() - started) / 1000
  await settled(worker, id)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  return { samples, bytes, events, seconds, after: rss(pid) }
}

/** workerd's resident memory before, while and after an object runs a 50 MB answer, twice. */
async function memory(worker: TestWorker, pid: number, section: string): Promise<Row[]> {
  // A small answer first, so the object's code and tables exist before the baseline.
  const id = await create(worker)
  await answer(worker, id, 'test/long')
  await settled(worker, id)
  await new Promise((resolve) => setTimeout(resolve, 500))
  const before = rss(pid)
  const first = await hugeAnswer(worker, pid, id)
  const second = await hugeAnswer(worker, pid, id)
  const { peakHeldChars } = await stats(worker, id)
  const { samples } = first
  const peak = Math.max(...samples)
  const quarter = Math.max(1, Math.floor(samples.length / 4))
  const early = median(samples.slice(0, quarter))
  const late = median(samples.slice(-quarter))
  return [
    {
      section,
      name: '50 MB answer in flight: SSE bytes to one client',
      value: mb(first.bytes),
      note: `${first.events.toLocaleString('en')} events in ${first.seconds.toFixed(1)} s`,
    },
    { section, name: 'workerd RSS before the answer', value: mb(before) },
    {
      section,
      name: 'workerd RSS, peak while it runs',
      value: mb(peak),
      note: `${signed(peak - before)} over before; ${samples.length} samples, one every ${RSS_EVERY_MS} ms`,
    },
    {
      section,
      name: 'workerd RSS, last quarter of the answer over its first',
      value: signed(late - early),
      note: `${mb(early)} → ${mb(late)} (medians of ${quarter} samples); an answer held would add 50 MB`,
    },
    {
      section,
      name: 'workerd RSS after the answer | after a second one',
      value: [mb(first.after), mb(second.after)],
      note: `${signed(first.after - before)}, then ${signed(second.after - first.after)} (peak ${mb(Math.max(...second.samples))} during the second)`,
    },
    {
      section,
      name: 'most characters of events the object held at once',
      value: `${(peakHeldChars / 1024).toFixed(0)} KiB`,
      note: "the object's counter: a batch not yet written, counted as its events' frames",
    },
  ]
}

/**
 * Through `wrangler dev` (the deployed Worker): after a finished `mock/echo` answer, a client
 * reconnects with `Last-Event-ID: 1` and the time to its first missed event is measured, beside
 * a `GET /v1/models` round trip in the same round.
 */
async function reconnect(section: string): Promise<Row[]> {
  // The mock makes no subrequest: the Anthropic address is never called.
  const worker = await startWorker('http://127.0.0.1:9', VARS, auth)
  try {
    const id = await create(worker)
    await answer(worker, id, 'mock/echo')
    await settled(worker, id)
    const firstMissedMs = async () => {
      const started = performance.now()
      const response = await call(worker, `/v1/conversations/${id}/stream`, undefined, {
        'last-event-id': '1',
      })
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let text = ''
      let first = -1
      for (let step = await reader.read(); !step.done; step = await reader.read()) {
        text += decoder.decode(step.value, { stream: true })
        if (first < 0 && text.includes('\n\n')) first = performance.now() - started
      }
      if (!text.startsWith('id: 2\n')) throw new Error(`the replay began ${text.slice(0, 40)}`)
      return first
    }
    const models = () => modelsRoundTripMs(worker.url, { headers: auth })
    for (let i = 0; i < 5; i++) {
      await firstMissedMs()
      await models()
    }
    const resumed: number[] = []
    const roundTrip: number[] = []
    for (let round = 0; round < RECONNECT_ROUNDS; round++) {
      if (round % 2 === 0) {
        resumed.push(await firstMissedMs())
        roundTrip.push(await models())
      } else {
        roundTrip.push(await models())
        resumed.push(await firstMissedMs())
      }
    }
    const ratio = median(resumed.map((value, i) => value / roundTrip[i]!))
    return [
      {
        section,
        name: 'GET /v1/models round trip (wrangler dev)',
        value: `${fmt(median(roundTrip))} ms`,
        note: `median of ${RECONNECT_ROUNDS}`,
      },
      {
        section,
        name: 'reconnect: first missed event (Last-Event-ID)',
        value: `${fmt(median(resumed))} ms`,
        note: `${verdict(ratio, 1.5)} of the round trip, same rounds (goal ≤ 1.5x); answer finished, events from storage`,
      },
    ]
  } finally {
    await worker.stop()
  }
}

/**
 * The `conversations` rows. `only: 'cpu'` measures the row writes and the CPU per answer alone
 * (`npx tsx bench/conversations.ts cpu`), for a change that touches nothing else; `only: 'floor'`
 * the row writes and a conversation's answer over its floor.
 */
export async function benchConversations(only?: 'cpu' | 'floor', rounds?: number): Promise<Row[]> {
  const section = 'durable conversations (workerd)'
  const upstream = await startProviderUpstream()
  let measured: MeasuredWorker | undefined
  try {
    measured = await startMeasuredWorker(upstream)
    const { worker, pid } = measured
    const rows = [await rowWrites(worker, section)]
    if (only === 'floor') return [...rows, ...(await overFloor(worker, pid, section, rounds))]
    rows.push(...(await cpuPerAnswer(worker, pid, section)))
    if (only === 'cpu') return rows
    rows.push(...(await memory(worker, pid, section)))
    rows.push(...(await reconnect(section)))
    return rows
  } finally {
    await measured?.worker.dispose()
    await upstream.close()
  }
}

if (isMain(import.meta.url)) {
  const only = process.argv[2]
  const rounds = process.argv[3] === undefined ? undefined : Number(process.argv[3])
  printTable(
    await benchConversations(only === 'cpu' || only === 'floor' ? only : undefined, rounds),
  )
}
