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
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { AssistantTurn } from '../src/core/conversation.ts'
import { mock } from '../src/providers/mock/index.ts'
import { aiSdkDialect } from '../src/relay/ai-sdk/index.ts'
import { messagesDialect } from '../src/relay/anthropic-messages/index.ts'
import { chatDialect, completionsDialect, type Dialect } from '../src/relay/dialects.ts'
import { createRelay } from '../src/relay/index.ts'
import { responsesDialect } from '../src/relay/openai-responses/index.ts'
import { resolveLimits } from '../src/relay/options.ts'
import { createSealer } from '../src/relay/seal.ts'
import { aiSdkDriver } from '../test/relay/dialects/ai-sdk-driver.ts'
import { anthropicMessagesDriver } from '../test/relay/dialects/anthropic-messages-driver.ts'
import { chatDriver } from '../test/relay/dialects/chat-driver.ts'
import { completionsDriver } from '../test/relay/dialects/completions-driver.ts'
import { responsesDriver } from '../test/relay/dialects/openai-responses-driver.ts'
import type { DialectDriver, DriverAnswer, DriverTurn } from '../test/relay/dialects/driver.ts'
import {
  clock,
  fmt,
  isMain,
  measure,
  printTable,
  ratio,
  targetNote,
  type Measured,
  type Row,
} from './harness.ts'

/** Each dialect: how the table's driver writes a request, and the relay's reading of it. */
const DIALECTS: readonly { driver: DialectDriver; dialect: Dialect }[] = [
  { driver: chatDriver, dialect: chatDialect },
  { driver: completionsDriver, dialect: completionsDialect },
  { driver: responsesDriver, dialect: responsesDialect },
  { driver: anthropicMessagesDriver, dialect: messagesDialect },
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

/**
 * One dialect's encoder beside `/v1/chat`'s, each per event, for an answer whose turn is sealed
 * (a relay with `SEAL_KEYS`: the dialect writes the sealed record in its own place) and for one
 * that is not; and the characters of a sealed answer.
 */
type EncoderPair = {
  sealed: { chat: Measured; dialect: Measured }
  plain: { chat: Measured; dialect: Measured }
  chars: number
  chatChars: number
}

/**
 * Measures `/v1/chat`'s encoder and `name`'s side by side. Run in a process of its own for each
 * dialect: the timed loop is one function for every encoder, and V8 keeps one record of the
 * shapes a call site met, so encoders timed in one process slow each other's calls there.
 */
async function encoderPair(name: string): Promise<EncoderPair> {
  const sealed = await sealedTurn()
  const { items: _items, ...plain } = sealed
  const chars = new Map<string, number>()
  const pair = DIALECTS.filter(({ driver }) => driver === chatDriver || driver.name === name)
  const variants = [sealed, plain].flatMap((turn) =>
    pair.map(({ driver, dialect }) => {
      const make = encoderOf(dialect, driver)
      return {
        name: driver.name,
        run: () => {
          let written = 0
          for (let a = 0; a < ANSWERS; a++) {
            const encode = make()
            for (let i = 0; i < DELTAS; i++)
              written += encode.delta({ type: 'thinking', text: 'tok ' }).length
            for (let i = 0; i < DELTAS; i++)
              written += encode.delta({ type: 'text', text: 'tok ' }).length
            written += encode.done(turn).length
          }
          if (turn === sealed) chars.set(driver.name, written / ANSWERS)
          return ANSWERS * (2 * DELTAS + 1)
        },
      }
    }),
  )
  const [sealedChat, sealedDialect, plainChat, plainDialect] = await measure(variants, ROUNDS, 2, {
    collect: 'each',
  })
  return {
    sealed: { chat: sealedChat!, dialect: sealedDialect! },
    plain: { chat: plainChat!, dialect: plainDialect! },
    chars: chars.get(name)!,
    chatChars: chars.get(chatDriver.name)!,
  }
}

/** {@link encoderPair} in a child process (this module, run with `--pair <name>`). */
function encoderPairAlone(name: string): Promise<EncoderPair> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--pair', name], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    let pair: EncoderPair | undefined
    child.on('message', (message) => (pair = message as EncoderPair))
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      if (pair !== undefined) resolve(pair)
      else reject(new Error(`the ${name} encoder bench ended (${signal ?? code}) without figures`))
    })
  })
}

export async function benchDialects(): Promise<Row[]> {
  const section = `dialects: ${clock.name} per event of a 1,000-event answer, encoded: sealed | not`
  const kb = (chars: number) => `${fmt(chars / 1000, 0)} KB a sealed answer`
  const us = (m: Measured) => `${fmt(m.usPerEvent, 3)} µs`
  const rows: Row[] = []
  for (const { driver } of DIALECTS) {
    if (driver === chatDriver) continue
    const { sealed, plain, chars, chatChars } = await encoderPairAlone(driver.name)
    if (rows.length === 0) {
      const value = [us(sealed.chat), us(plain.chat)]
      rows.push({ section, name: chatDriver.name, value, note: `${kb(chatChars)}; the floor` })
    }
    const over = [ratio(sealed.dialect, sealed.chat), ratio(plain.dialect, plain.chat)]
    rows.push({
      section,
      name: driver.name,
      value: [us(sealed.dialect), us(plain.dialect)],
      note: `${kb(chars)}; ${targetNote('over /v1/chat, side by side', over, TARGET)}`,
    })
  }

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

if (process.argv[2] === '--pair') {
  // In a child: measure the one pair, hand it to the parent, and let the channel close.
  process.send!(await encoderPair(process.argv[3]!))
  process.disconnect()
} else if (isMain(import.meta.url)) printTable(await benchDialects())
