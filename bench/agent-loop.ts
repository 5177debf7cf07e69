/**
 * An agent's tool loop (DESIGN §13), two ways, in workerd, side by side: run by the conversation's
 * Durable Object (the tool a server tool, one request for the whole loop), and run by the browser
 * over `/v1/chat` (`runTools` on `relay()`, the tool run by the client, each step a new POST with
 * the history). Five model calls a loop (four call a tool, the fifth answers) from a scripted
 * model served on both sides (`bench/fixtures/agent-loop-worker.ts`). Measured per step: workerd's
 * CPU (every thread, as `bench/conversations.ts` reads it), the rows the object writes, and the
 * wall time of the loop with the client 50 ms away from the relay each way (each request waits
 * 50 ms before it is sent, its response 50 ms before it arrives, and each chunk of its body 50 ms
 * after workerd sent it). Run alone: `npx tsx bench/agent-loop.ts [rounds]`.
 */
import { Agent, type Dispatcher } from 'undici'
import { relay } from '../src/client/index.ts'
import { runTools } from '../src/core/tools.ts'
import { startTestWorker, type TestWorker } from '../test/worker/start-worker.ts'
import {
  auth,
  cpuRounds,
  create,
  measuredStart,
  VARS,
  type MeasuredWorker,
  type TimedPath,
} from './conversations.ts'
import { LOOP_STEPS, lookup, STEP_TOKENS } from './fixtures/agent-loop-model.ts'
import { fmt, isMain, median, middleHalf, printTable, verdict, type Row } from './harness.ts'

const ENTRY = 'bench/fixtures/agent-loop-worker.ts'
const MODEL = 'bench/steps'
/** How far the client is from the relay, each way. */
const NETWORK_MS = 50
/** Loops of each path a round, and rounds (after one that warms up). */
const BATCH = 6
const ROUNDS = 15
/** How many times a round in which a connection dropped is run again before the run fails. */
const RETRIES = 3

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * `fetch` from a client `ms` away from the server each way, on kept-alive connections (a
 * browser's): the request leaves `ms` before it arrives, the response's head arrives `ms` after
 * workerd sent it, and so does each chunk of its body.
 */
function distantFetch(ms: number, dispatcher: Dispatcher): typeof fetch {
  return async (input, init) => {
    await sleep(ms)
    const response = await fetch(input, { ...init, dispatcher } as RequestInit)
    const body = response.body === null ? null : late(response.body, ms)
    await sleep(ms)
    const { status, statusText, headers } = response
    return new Response(body, { status, statusText, headers })
  }
}

/** `body` with each chunk (and its end) handed on `ms` after it was read. */
function late(body: ReadableStream<Uint8Array>, ms: number): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  return new ReadableStream<Uint8Array>({
    start(controller) {
      // Read at once, as the network delivers: timers of one delay run in the order they were set.
      void (async () => {
        try {
          for (;;) {
            const { done, value } = await reader.read()
            if (done) return void setTimeout(() => controller.close(), ms)
            setTimeout(() => controller.enqueue(value), ms)
          }
        } catch (error) {
          setTimeout(() => controller.error(error), ms)
        }
      })()
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

/** One loop in the browser: `runTools` over `relay()`, checked to have made every step. */
async function browserLoop(worker: TestWorker, fetch: typeof globalThis.fetch): Promise<void> {
  const adapter = relay({ url: worker.url.origin, model: MODEL, headers: auth, fetch })
  const asked = { turns: [{ role: 'user' as const, content: 'Go' }] }
  const { steps, turn } = await runTools(adapter, asked, {
    tools: { lookup },
    maxSteps: LOOP_STEPS,
  })
  if (steps !== LOOP_STEPS || turn.toolCalls !== undefined) {
    throw new Error(`the browser's loop made ${steps} steps, the last asking for tools`)
  }
}

/** One loop in conversation `id`'s object: one message, its stream read to the end and checked. */
async function objectLoop(
  worker: TestWorker,
  fetch: typeof globalThis.fetch,
  id: string,
): Promise<void> {
  const response = await fetch(new URL(`/v1/conversations/${id}/messages`, worker.url), {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: MODEL,
      turn: { role: 'user', content: 'Go' },
      serverTools: ['lookup'],
      maxSteps: LOOP_STEPS,
    }),
  })
  if (response.status !== 200) throw new Error(`message answered ${response.status}`)
  const text = await response.text()
  const count = (name: string) => text.split(`\nevent: ${name}\n`).length - 1
  // Each step's `done`, a `tool-result` for each step that called the tool, and `done` last.
  const ended = /\nevent: done\n[^\n]*\n\n$/.test(text)
  if (count('done') !== LOOP_STEPS || count('tool-result') !== LOOP_STEPS - 1 || !ended) {
    throw new Error(`the object's loop did not make ${LOOP_STEPS} steps: ${text.slice(-300)}`)
  }
}

/** The object's row writes over one loop (its counter, read through the bench route). */
async function rowsPerLoop(worker: TestWorker, fetch: typeof globalThis.fetch): Promise<number> {
  const written = async (id: string) => {
    const response = await worker.fetch(`/v1/__bench/conversation?id=${id}`)
    return ((await response.json()) as { stats: { rowsWritten: number } }).stats.rowsWritten
  }
  const id = await create(worker)
  const before = await written(id)
  await objectLoop(worker, fetch, id)
  // The object's last writes (its metadata, the alarm) follow the stream's end.
  await sleep(200)
  return (await written(id)) - before
}

/** The `agents` rows: the loop in the object beside the loop in the browser. */
export async function benchAgentLoop(rounds = ROUNDS): Promise<Row[]> {
  const section = `agent loop of ${LOOP_STEPS} steps (workerd; client ${NETWORK_MS} ms away each way)`
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 })
  const fetch = distantFetch(NETWORK_MS, dispatcher)
  let measured: MeasuredWorker | undefined
  try {
    measured = await measuredStart(() => startTestWorker(VARS, ENTRY))
    const { worker, pid } = measured
    const rows = await rowsPerLoop(worker, fetch)
    const paths: TimedPath[] = [
      { worker, pid, conversation: false, answer: () => browserLoop(worker, fetch) },
      { worker, pid, conversation: true, answer: (id) => objectLoop(worker, fetch, id) },
    ]
    const wall: number[][] = paths.map(() => [])
    const [browser, object] = await cpuRounds(
      paths,
      { rounds, batch: BATCH, pauseMs: 100, retries: RETRIES },
      async (index, timed) => {
        const started = performance.now()
        await timed()
        wall[index]!.push(performance.now() - started)
      },
    )
    const perStep = (loops: number[]) => loops.map((ms) => ms / LOOP_STEPS)
    const cpu = (loops: number[]) => `${fmt(median(perStep(loops)))} ms`
    const ratios = object!.map((ms, round) => ms / browser![round]!)
    const [browserWall, objectWall] = [median(wall[0]!), median(wall[1]!)]
    const how = `workerd process CPU (every thread's schedstat) around each loop, over its ${LOOP_STEPS} model calls; ${BATCH} loops of each a round in turn, median of ${rounds} rounds; ${STEP_TOKENS} text events a step`
    return [
      {
        section,
        name: 'CPU per step: browser over /v1/chat | in the object',
        value: [cpu(browser!), cpu(object!)],
        note: how,
      },
      {
        section,
        name: "the object's loop over the browser's, CPU",
        value: verdict(median(ratios), 1.2),
        note: `goal ≤ 1.2x; middle half of the rounds ${middleHalf(ratios)}x`,
      },
      {
        section,
        name: 'row writes per step: browser | in the object',
        value: ['0', fmt(rows / LOOP_STEPS, 1)],
        note: `${rows} a loop, from the object's counter; /v1/chat stores nothing`,
      },
      {
        section,
        name: 'wall time of a loop: browser | in the object',
        value: [`${fmt(browserWall, 0)} ms`, `${fmt(objectWall, 0)} ms`],
        note: `the object's loop in ${fmt(objectWall / browserWall)}x the time (${LOOP_STEPS} requests, each two ${NETWORK_MS} ms hops, against one); median of every timed loop`,
      },
    ]
  } finally {
    await measured?.worker.dispose()
    await dispatcher.close()
  }
}

if (isMain(import.meta.url)) {
  const rounds = process.argv[2] === undefined ? ROUNDS : Number(process.argv[2])
  printTable(await benchAgentLoop(rounds))
}
