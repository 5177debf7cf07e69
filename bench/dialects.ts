/**
 * What each chat dialect of the relay costs beside `/v1/chat`, in-process, in CPU time (the
 * harness's `clock`): its encoder per event of a 1,000-event answer (500 thinking and 500 text
 * deltas of one token, then `done` with a sealed turn), the encoders run back to back each round
 * (the frames' size is in the note: making them bytes costs each dialect by its size);
 * and its request translation per turn at 10, 100 and 1,000 turns (each assistant turn the sealed
 * answer a client of the dialect sends back), which should cost the same per turn at every size.
 * Target: each encoder at most 1.1x `/v1/chat`'s. Every dialect comes from the conformance
 * table's drivers, so a new dialect gets its rows by joining the table. Run alone:
 * `node --expose-gc --import tsx bench/dialects.ts`.
 */
import type { AssistantTurn } from '../src/core/conversation.ts'
import { mock } from '../src/providers/mock/index.ts'
import { aiSdkDialect } from '../src/relay/ai-sdk/index.ts'
import { chatDialect, completionsDialect, type Dialect } from '../src/relay/dialects.ts'
import { createRelay } from '../src/relay/index.ts'
import { resolveLimits } from '../src/relay/options.ts'
import { createSealer } from '../src/relay/seal.ts'
import { aiSdkDriver } from '../test/relay/dialects/ai-sdk-driver.ts'
import { chatDriver } from '../test/relay/dialects/chat-driver.ts'
import { completionsDriver } from '../test/relay/dialects/completions-driver.ts'
import type { DialectDriver, DriverAnswer, DriverTurn } from '../test/relay/dialects/driver.ts'
import { clock, fmt, isMain, measure, printTable, ratio, targetNote, type Row } from './harness.ts'

/** Each dialect: how the table's driver writes a request, and the relay's reading of it. */
const DIALECTS: readonly { driver: DialectDriver; dialect: Dialect }[] = [
  { driver: chatDriver, dialect: chatDialect },
  { driver: completionsDriver, dialect: completionsDialect },
  { driver: aiSdkDriver, dialect: aiSdkDialect },
]

const TARGET = 1.1
const ROUNDS = 11
/** Answers encoded per timed run, so that a run takes some milliseconds. */
const ANSWERS = 20
const DELTAS = 500
const SIZES = [10, 100, 1000] as const
const SEAL_KEY = 'bench-dialects-seal-Qm4Rt8Wz2Xc6Vb0Nk5Lp'
const MODEL = 'mock/echo'

/** The sealed turn that ends every encoded answer. */
async function sealedTurn(): Promise<AssistantTurn> {
  const turn: AssistantTurn = {
    role: 'assistant',
    text: 'tok '.repeat(DELTAS),
    thinking: 'tok '.repeat(DELTAS),
    usage: { inputTokens: 20, outputTokens: 2 * DELTAS },
    stopReason: 'stop',
    items: { provider: 'mock', model: 'echo', thinkingMode: 'on', data: [{ signature: 'c2ln' }] },
  }
  return { ...turn, items: { ...turn.items!, seal: await createSealer([SEAL_KEY]).seal(turn) } }
}

function encoderOf(dialect: Dialect, driver: DialectDriver) {
  const { body } = driver.request({
    model: MODEL,
    turns: [{ role: 'user', text: 'Go' }],
    stream: true,
  })
  const parsed = dialect.parse(body, resolveLimits())
  if (!parsed.ok) throw new Error(`${driver.name}: ${parsed.message}`)
  return () => parsed.call.encoder()
}

/** The answer a client of the dialect holds after one sealed turn: what it sends back. */
async function heldAnswer(driver: DialectDriver): Promise<DriverAnswer> {
  const relay = createRelay({
    providers: {
      mock: [mock({ script: [{ thinking: 'Some thinking.', text: 'An answer of some length.' }] })],
    },
    sealKeys: [SEAL_KEY],
  })
  const call = { model: MODEL, turns: [{ role: 'user' as const, text: 'Go' }], stream: true }
  const { body, headers } = driver.request(call)
  const response = await relay.fetch(
    new Request(`http://relay.local${driver.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }),
  )
  const outcome = await driver.read(response, call)
  if (!outcome.ok) throw new Error(`${driver.name}: ${outcome.message}`)
  return outcome.answer
}

export async function benchDialects(): Promise<Row[]> {
  const turn = await sealedTurn()
  /** Characters of one answer's frames, by dialect. */
  const sizes = new Map<string, number>()
  const encoders = DIALECTS.map(({ driver, dialect }) => {
    const make = encoderOf(dialect, driver)
    return {
      name: driver.name,
      run: () => {
        let chars = 0
        for (let a = 0; a < ANSWERS; a++) {
          const encode = make()
          for (let i = 0; i < DELTAS; i++)
            chars += encode.delta({ type: 'thinking', text: 'tok ' }).length
          for (let i = 0; i < DELTAS; i++)
            chars += encode.delta({ type: 'text', text: 'tok ' }).length
          chars += encode.done(turn).length
        }
        sizes.set(driver.name, chars / ANSWERS)
        return ANSWERS * (2 * DELTAS + 1)
      },
    }
  })
  const measured = await measure(encoders, ROUNDS, 2, { collect: 'each' })
  const chat = measured[0]!
  const rows: Row[] = measured.map((m) => ({
    section: `dialects: ${clock.name} per event of a 1,000-event answer, encoded`,
    name: m.name,
    value: `${fmt(m.usPerEvent, 3)} µs`,
    note: `${fmt(sizes.get(m.name)! / 1000, 0)} KB an answer; ${m === chat ? 'the floor' : targetNote('over /v1/chat', [ratio(m, chat)], TARGET)}`,
  }))

  for (const { driver, dialect } of DIALECTS) {
    const answer = await heldAnswer(driver)
    const limits = resolveLimits({ turns: 2 * Math.max(...SIZES), bodyBytes: 64 * 1024 * 1024 })
    const sized = SIZES.map((size) => {
      const turns: DriverTurn[] = []
      for (let i = 0; turns.length < size; i++) {
        turns.push({ role: 'user', text: `Question ${i}: what comes next?` })
        if (turns.length < size) turns.push({ role: 'assistant', answer })
      }
      if (turns.at(-1)?.role !== 'user') turns[turns.length - 1] = { role: 'user', text: 'Last.' }
      const { body } = driver.request({ model: MODEL, turns, stream: true })
      return {
        name: `${size} turns`,
        run: () => {
          // Enough turns a run for some milliseconds at every size.
          const times = Math.ceil(4000 / size)
          for (let k = 0; k < times; k++) {
            const parsed = dialect.parse(body, limits)
            if (!parsed.ok) throw new Error(`${driver.name}, ${size} turns: ${parsed.message}`)
          }
          return times * size
        },
      }
    })
    const perTurn = await measure(sized, ROUNDS, 2)
    const smallest = perTurn[0]!
    const largest = perTurn.at(-1)!
    rows.push({
      section: `dialects: ${clock.name} per turn of translating a request (${SIZES.join(', ')} turns)`,
      name: driver.name,
      value: perTurn.map((m) => `${fmt(m.usPerEvent, 2)} µs`),
      note: `${SIZES.at(-1)} turns cost ${fmt(ratio(largest, smallest))}x per turn what ${SIZES[0]} do (linear: 1x)`,
    })
  }
  return rows
}

if (isMain(import.meta.url)) printTable(await benchDialects())
