/**
 * The adapter contract (DESIGN §1–§3) as plain async checks: each takes one adapter's table entry
 * and throws an `Error` that says what broke. Nothing here imports a test framework or a Node
 * module, so the same checks run in Node, in workerd and in a browser page.
 */
import type { Adapter, CallOptions, ToolSpec } from '../../src/core/adapter.ts'
import type { AssistantTurn, Conversation, ToolTurn, Turn } from '../../src/core/conversation.ts'
import { Chat } from '../../src/core/chat.ts'
import { isThinkwireError } from '../../src/core/errors.ts'
import type { ToolCall } from '../../src/core/events.ts'
import { collect, doneTurn, failure } from '../helpers/stream.ts'
import { eventually } from '../helpers/eventually.ts'
import { assert, assertEqual, describeError, show } from './assert.ts'

/** One adapter wired to a fake upstream. */
export type Upstream = {
  adapter: Adapter
  /** True once the upstream request was aborted (its signal fired, or its body was cancelled). */
  upstreamAborted(): boolean
  /** The last request the upstream received (a parsed body), for replay checks. */
  lastRequest(): unknown
  /** How many requests the upstream received. */
  requestCount(): number
}

/** What the eight basic checks need of an adapter: its upstream in each scenario. */
export type ContractSetup = {
  /** Options every call passes (e.g. a thinking level the answers were made with). */
  callOptions?: CallOptions | undefined
  /** An adapter (of `model`, when given) whose upstream answers with deltas and a complete turn. */
  answer(model?: string): Upstream
  /** An adapter whose upstream fails after the first event. */
  failAfterFirstEvent(): Upstream
  /** An adapter whose upstream sends one event and then stays silent until aborted. */
  stallAfterFirstEvent(): Upstream
  /** Strings of a done turn that appear in a request only when its items are replayed verbatim. */
  replayMarkers(turn: AssistantTurn): string[]
  /** The thinking and text the answer streams, when known, to check the turn against. */
  streamed?: { thinking: string; text: string } | undefined
}

/** The runtimes the contract runs in. */
export type RuntimeName = 'node' | 'workerd' | 'chromium'

/** One adapter of the table: its setup, and what the further checks need of it. */
export type AdapterEntry = ContractSetup & {
  /** How tests name it, e.g. `'anthropic'`, `'openai-compatible (deepseek)'`. */
  name: string
  /** The one tool call `answer()` streams, as it must assemble. */
  toolCall: { name: string; input: unknown }
  /**
   * An adapter whose upstream streams thinking and then stops at the output limit (`length`),
   * before any answer: a turn that must go back as the provider takes it, by its own rules.
   */
  cutShort(): Upstream
  /**
   * An option the adapter's model does not take (with `model`, the model to build it for): it must
   * be left out of the request and named (by `warns`) in the done turn's warnings. An adapter
   * whose model takes every option says so instead (`takesAll`, and `because`): then those options
   * must pass without a single warning.
   */
  drops:
    | { options: CallOptions; warns: string; model?: string | undefined }
    | { takesAll: CallOptions; because: string }
  /** The provider's documented request rules that `lastRequest()` breaks; empty when valid. */
  requestProblems(request: unknown): string[]
}

/** A done turn another adapter made, for the cross-provider check. */
export type ForeignTurn = { adapter: string; turn: AssistantTurn; markers: string[] }

/** What a check may need beyond its own entry. */
export type CheckContext = {
  /** The done turns of every adapter in the run (made once, shared). */
  turns(): Promise<ForeignTurn[]>
  /** The events each adapter's answer gave in Node, to compare against (other runtimes only). */
  baseline?: Record<string, unknown> | undefined
}

/** One contract check. */
export type Check<E = AdapterEntry> = {
  name: CheckName
  run(entry: E, context: CheckContext): Promise<void>
}

/** The name of a check: a sentence that says what the adapter does. */
export type CheckName =
  | 'yields deltas in order and exactly one done, last, that agrees with them'
  | 'throws a ThinkwireError and yields no done when the stream fails after the first event'
  | 'cancels the upstream request when the consumer stops after the first event'
  | 'throws an aborted error and cancels the upstream when the signal aborts mid-stream'
  | 'makes no request when the signal is already aborted'
  | "replays its own turn's items verbatim to the same model and thinking mode"
  | 'does not replay its items to another model'
  | 'does not replay its items under another thinking mode'
  | 'streams a tool call as one complete tool-call event, and answers it on replay'
  | 'leaves out an option its model does not take, and names it in warnings'
  | "builds a valid request from its own and every other adapter's turns, replaying only its own"
  | 'replays every conversation a helper commits (stopped, step-limited, stopped in a tool) as a valid request'
  | 'replays a turn the output limit cut in its thinking as a valid request'
  | 'streams the same events as in Node'

const ask: Conversation = {
  turns: [{ role: 'user', content: 'What is the weather? Think first.' }],
}
const followUp: Turn = { role: 'user', content: 'And tomorrow?' }

/** The tool turn that answers every call of `turn`, each output naming its call. */
function resultsFor(turn: AssistantTurn, label: string): ToolTurn {
  return {
    role: 'tool',
    results: (turn.toolCalls ?? []).map((call) => ({
      callId: call.id,
      name: call.name,
      output: `${call.name} → 18 °C for ${label} (${call.id})`,
    })),
  }
}

/** `turn`, and the results of its tool calls when it made any: a history a provider accepts. */
function answered(turn: AssistantTurn, label: string): Turn[] {
  return (turn.toolCalls ?? []).length === 0 ? [turn] : [turn, resultsFor(turn, label)]
}

/** Tools that declare every call's name, as a caller replaying those calls would pass. */
function toolsFor(calls: readonly { name: string }[]): ToolSpec[] {
  return [...new Set(calls.map((call) => call.name))].map((name) => ({
    name,
    description: `Looks up ${name}.`,
    parameters: { type: 'object', additionalProperties: true },
  }))
}

/** The string leaves of a tool input: what any encoding of the call must carry. */
function leaves(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)]
  if (typeof value !== 'object' || value === null) return []
  return Object.values(value).flatMap(leaves)
}

function inJson(value: string): string {
  return JSON.stringify(value).slice(1, -1)
}

function assertNoMarkers(sent: string, markers: string[], whose: string): void {
  for (const marker of markers)
    assert(!sent.includes(marker), `the request carries ${whose} replay marker ${show(marker, 80)}`)
}

function assertValid(entry: AdapterEntry, request: unknown, what: string): void {
  const problems = entry.requestProblems(request)
  assert(
    problems.length === 0,
    `${what} breaks the provider's request rules: ${problems.join('; ')}`,
  )
}

/** The eight checks every adapter has kept since the first wave, on a {@link ContractSetup}. */
export const basicChecks: Check<ContractSetup>[] = [
  {
    name: 'yields deltas in order and exactly one done, last, that agrees with them',
    async run(setup) {
      const { adapter } = setup.answer()
      const events = await collect(adapter.stream(ask, setup.callOptions ?? {}))
      const dones = events.filter((e) => e.type === 'done').length
      assert(dones === 1, `expected exactly one done event, got ${dones}`)
      const turn = doneTurn(events)
      assert(events.length > 1, 'expected deltas before done, got done alone')
      let text = ''
      let thinking = ''
      const calls: ToolCall[] = []
      for (const event of events) {
        if (event.type === 'text') text += event.text
        if (event.type === 'thinking') thinking += event.text
        if (event.type === 'tool-call') calls.push(event.call)
        if (event.type === 'text' || event.type === 'thinking')
          assert(event.text !== '', `an empty ${event.type} delta was emitted`)
      }
      assert(typeof turn.text === 'string', `turn.text is ${show(turn.text)}, not a string`)
      assertEqual(turn.text, text, 'turn.text against the text deltas')
      assertEqual(turn.thinking ?? '', thinking, 'turn.thinking against the thinking deltas')
      assertEqual(turn.toolCalls ?? [], calls, 'turn.toolCalls against the tool-call events')
      if (setup.streamed !== undefined) {
        assertEqual(text, setup.streamed.text, 'the text deltas against what the upstream streamed')
        assertEqual(
          thinking,
          setup.streamed.thinking,
          'the thinking deltas against what the upstream streamed',
        )
      }
      assertEqual(turn.role, 'assistant', 'turn.role')
      assertEqual(turn.items?.provider, adapter.provider, 'turn.items.provider')
      assertEqual(turn.items?.model, adapter.model, 'turn.items.model')
      assert(
        turn.usage.inputTokens >= 0 && turn.usage.outputTokens >= 0,
        `turn.usage is ${show(turn.usage)}`,
      )
    },
  },
  {
    name: 'throws a ThinkwireError and yields no done when the stream fails after the first event',
    async run(setup) {
      const { adapter } = setup.failAfterFirstEvent()
      const { events, error } = await failure(adapter.stream(ask, setup.callOptions ?? {}))
      assert(isThinkwireError(error), `expected a ThinkwireError, got ${describeError(error)}`)
      assert(events.length >= 1, 'expected an event before the failure, got none')
      assert(!events.some((e) => e.type === 'done'), 'a done event came before the failure')
    },
  },
  {
    name: 'cancels the upstream request when the consumer stops after the first event',
    async run(setup) {
      const upstream = setup.stallAfterFirstEvent()
      for await (const event of upstream.adapter.stream(ask, setup.callOptions ?? {})) {
        assert(event.type !== 'done', 'the first event was done')
        break
      }
      await eventually(upstream.upstreamAborted, 'the upstream request was not aborted')
    },
  },
  {
    name: 'throws an aborted error and cancels the upstream when the signal aborts mid-stream',
    async run(setup) {
      const upstream = setup.stallAfterFirstEvent()
      const controller = new AbortController()
      const options = { ...setup.callOptions, signal: controller.signal }
      const { events, error } = await failure(
        (async function* () {
          for await (const event of upstream.adapter.stream(ask, options)) {
            yield event
            controller.abort()
          }
        })(),
      )
      assertEqual(events.length, 1, 'events before the abort')
      assert(
        isThinkwireError(error) && error.kind === 'aborted',
        `expected an aborted ThinkwireError, got ${describeError(error)}`,
      )
      await eventually(upstream.upstreamAborted, 'the upstream request was not aborted')
    },
  },
  {
    name: 'makes no request when the signal is already aborted',
    async run(setup) {
      const upstream = setup.answer()
      const controller = new AbortController()
      controller.abort()
      const options = { ...setup.callOptions, signal: controller.signal }
      const { error } = await failure(upstream.adapter.stream(ask, options))
      assert(
        isThinkwireError(error) && error.kind === 'aborted',
        `expected an aborted ThinkwireError, got ${describeError(error)}`,
      )
      assertEqual(upstream.requestCount(), 0, 'requests made')
    },
  },
  {
    name: "replays its own turn's items verbatim to the same model and thinking mode",
    async run(setup) {
      const options = setup.callOptions ?? {}
      const upstream = setup.answer()
      const turn = doneTurn(await collect(upstream.adapter.stream(ask, options)))
      const markers = setup.replayMarkers(turn)
      assert(markers.length > 0, 'the turn has no replay markers to look for')
      const next = { turns: [...ask.turns, ...answered(turn, 'self'), followUp] }
      await collect(upstream.adapter.stream(next, options))
      const sent = JSON.stringify(upstream.lastRequest())
      for (const marker of markers)
        assert(sent.includes(marker), `the request lacks replay marker ${show(marker, 80)}`)
    },
  },
  {
    name: 'does not replay its items to another model',
    async run(setup) {
      const options = setup.callOptions ?? {}
      const turn = doneTurn(await collect(setup.answer().adapter.stream(ask, options)))
      const other = setup.answer('another-model')
      assertEqual(other.adapter.model, 'another-model', 'the other adapter model')
      const next = { turns: [...ask.turns, ...answered(turn, 'self'), followUp] }
      await collect(other.adapter.stream(next, options))
      const sent = JSON.stringify(other.lastRequest())
      assertNoMarkers(sent, setup.replayMarkers(turn), 'the first model’s')
      if (turn.text !== '')
        assert(sent.includes(inJson(turn.text)), 'the request lacks the turn’s text')
    },
  },
  {
    name: 'does not replay its items under another thinking mode',
    async run(setup) {
      const options = setup.callOptions ?? {}
      const upstream = setup.answer()
      const turn = doneTurn(await collect(upstream.adapter.stream(ask, options)))
      const thinking = options.thinking === 'off' ? 'high' : 'off'
      const next = { turns: [...ask.turns, ...answered(turn, 'self'), followUp] }
      await collect(upstream.adapter.stream(next, { ...options, thinking }))
      const sent = JSON.stringify(upstream.lastRequest())
      assertNoMarkers(sent, setup.replayMarkers(turn), 'the other mode’s')
    },
  },
]

const toolCheck: Check = {
  name: 'streams a tool call as one complete tool-call event, and answers it on replay',
  async run(entry) {
    const options = { ...entry.callOptions, tools: toolsFor([entry.toolCall]) }
    const upstream = entry.answer()
    const events = await collect(upstream.adapter.stream(ask, options))
    const turn = doneTurn(events)
    const calls = events.flatMap((e) => (e.type === 'tool-call' ? [e.call] : []))
    assertEqual(calls.length, 1, 'tool-call events')
    const call = calls[0]!
    assertEqual(turn.toolCalls ?? [], calls, "the done turn's toolCalls against the events")
    assert(typeof call.id === 'string' && call.id !== '', `the call id is ${show(call.id)}`)
    assertEqual({ name: call.name, input: call.input }, entry.toolCall, 'the assembled call')
    assertEqual(turn.stopReason, 'tool-calls', 'turn.stopReason')

    const results = resultsFor(turn, entry.name)
    const before = upstream.requestCount()
    await collect(upstream.adapter.stream({ turns: [...ask.turns, turn, results] }, options))
    assert(upstream.requestCount() > before, 'answering the call made no request')
    const request = upstream.lastRequest()
    assertValid(entry, request, 'the request answering the call')
    const output = String(results.results[0]!.output)
    assert(JSON.stringify(request).includes(inJson(output)), 'the request lacks the tool result')
  },
}

const dropCheck: Check = {
  name: 'leaves out an option its model does not take, and names it in warnings',
  async run(entry) {
    const drops = entry.drops
    const options = entry.callOptions ?? {}
    if ('takesAll' in drops) {
      const { adapter } = entry.answer()
      const turn = doneTurn(await collect(adapter.stream(ask, { ...options, ...drops.takesAll })))
      assertEqual(
        turn.warnings,
        undefined,
        `warnings for ${show(drops.takesAll)} (${drops.because})`,
      )
      return
    }
    const plain = entry.answer(drops.model)
    const plainTurn = doneTurn(await collect(plain.adapter.stream(ask, options)))
    const dropping = entry.answer(drops.model)
    const turn = doneTurn(
      await collect(dropping.adapter.stream(ask, { ...options, ...drops.options })),
    )
    const mentions = (warnings: string[] | undefined) =>
      (warnings ?? []).some((warning) => warning.includes(drops.warns))
    assert(
      mentions(turn.warnings),
      `expected a warning naming '${drops.warns}', got ${show(turn.warnings)}`,
    )
    assert(!mentions(plainTurn.warnings), `warned of '${drops.warns}' without the option`)
    assertEqual(
      dropping.lastRequest(),
      plain.lastRequest(),
      `the request with ${show(drops.options)} against the one without`,
    )
  },
}

const foreignCheck: Check = {
  name: "builds a valid request from its own and every other adapter's turns, replaying only its own",
  async run(entry, context) {
    const upstream = entry.answer()
    const { provider, model } = upstream.adapter
    // A turn tagged with this very provider and model is not foreign: it is replayed, rightly.
    const foreign = (await context.turns()).filter(
      (other) =>
        other.adapter !== entry.name &&
        !(other.turn.items?.provider === provider && other.turn.items.model === model),
    )
    assert(foreign.length > 0, 'no other adapter made a turn to build from')
    const calls = foreign.flatMap((other) => other.turn.toolCalls ?? [])
    const options = { ...entry.callOptions, tools: toolsFor([...calls, entry.toolCall]) }
    // The conversation starts here, moves through every other adapter and comes back.
    const own = doneTurn(await collect(upstream.adapter.stream(ask, options)))
    const turns: Turn[] = [...ask.turns, ...answered(own, entry.name)]
    for (const other of foreign) turns.push(...answered(other.turn, other.adapter))
    turns.push({ role: 'user', content: 'Now sum it up.' })

    try {
      await collect(upstream.adapter.stream({ system: 'Trip planner.', turns }, options))
    } catch (error) {
      throw new Error(`the call failed: ${describeError(error)}`, { cause: error })
    }
    const request = upstream.lastRequest()
    assertValid(entry, request, 'the request')
    const sent = JSON.stringify(request)
    for (const marker of entry.replayMarkers(own))
      assert(sent.includes(marker), `the request lacks its own replay marker ${show(marker, 80)}`)
    for (const other of foreign) {
      const { turn } = other
      assertNoMarkers(sent, other.markers, `${other.adapter}'s`)
      if (turn.thinking !== undefined && turn.thinking !== '')
        assert(
          !sent.includes(inJson(turn.thinking)),
          `the request carries ${other.adapter}'s thinking`,
        )
      assert(sent.includes(inJson(turn.text)), `the request lacks ${other.adapter}'s text`)
      for (const call of turn.toolCalls ?? []) {
        for (const part of [call.name, ...leaves(call.input)])
          assert(
            sent.includes(inJson(part)),
            `the request lacks ${other.adapter}'s tool call ${call.name} (${show(part)})`,
          )
      }
    }
  },
}

/** Drains a `Chat` send that may end quietly (a stop) or fail; what matters is what it commits. */
async function settle(send: AsyncIterable<unknown>): Promise<void> {
  try {
    for await (const _ of send);
  } catch {
    // A failure commits nothing: the conversation is checked as it is.
  }
}

const committedCheck: Check = {
  name: 'replays every conversation a helper commits (stopped, step-limited, stopped in a tool) as a valid request',
  async run(entry) {
    const options = { ...entry.callOptions, tools: toolsFor([entry.toolCall]) }
    /** The request an adapter sends to go on from `conversation`, which must be valid. */
    const goOn = async (conversation: Conversation, what: string) => {
      const upstream = entry.answer()
      await collect(
        upstream.adapter.stream(
          { ...conversation, turns: [...conversation.turns, { role: 'user', content: 'Go on.' }] },
          options,
        ),
      )
      assertValid(entry, upstream.lastRequest(), `the request after ${what}`)
    }

    // Stopped after the first event of the answer (thinking or text): kept as a stopped turn.
    const stalled = new Chat({ adapter: entry.stallAfterFirstEvent().adapter, options })
    await settle(
      (async function* () {
        for await (const event of stalled.send('What is the weather?')) {
          yield event
          stalled.stop()
        }
      })(),
    )
    assertEqual(stalled.conversation.turns.at(-1)?.role, 'assistant', 'the turn a stop keeps')
    await goOn(stalled.conversation, 'a stop')

    // The model still calls a tool at the step limit: the call is answered as not run.
    const limited = new Chat({
      adapter: entry.answer().adapter,
      options,
      maxSteps: 1,
      onToolCall: () => 'never run',
    })
    await settle(limited.send('What is the weather?'))
    assertEqual(limited.conversation.turns.at(-1)?.role, 'tool', 'the last turn at the step limit')
    await goOn(limited.conversation, 'the step limit')

    // Stopped while a tool runs: every call is answered as stopped.
    const inTool = new Chat({
      adapter: entry.answer().adapter,
      options,
      onToolCall: (_call, { signal }) =>
        new Promise((_, reject) =>
          signal?.addEventListener('abort', () => reject(new Error('stopped'))),
        ),
    })
    const sending = settle(inTool.send('What is the weather?'))
    await eventually(
      () => inTool.getSnapshot().messages.some((m) => m.toolCalls.length > 0),
      'the tool call to arrive',
    )
    inTool.stop()
    await sending
    assertEqual(
      inTool.conversation.turns.at(-1)?.role,
      'tool',
      'the last turn after a stop in a tool',
    )
    await goOn(inTool.conversation, 'a stop in a tool')

    // A tool call the app never answered, then a new question.
    const unanswered = new Chat({ adapter: entry.answer().adapter, options })
    await settle(unanswered.send('What is the weather?'))
    await goOn(unanswered.conversation, 'an unanswered tool call')
  },
}

const cutShortCheck: Check = {
  name: 'replays a turn the output limit cut in its thinking as a valid request',
  async run(entry) {
    const options = entry.callOptions ?? {}
    const upstream = entry.cutShort()
    const turn = doneTurn(await collect(upstream.adapter.stream(ask, options)))
    assertEqual(turn.stopReason, 'length', 'turn.stopReason')
    assert((turn.thinking ?? '') !== '', 'the turn cut short streamed no thinking')
    await collect(upstream.adapter.stream({ turns: [...ask.turns, turn, followUp] }, options))
    assertValid(entry, upstream.lastRequest(), 'the request after a turn cut in its thinking')
  },
}

const sameEventsCheck: Check = {
  name: 'streams the same events as in Node',
  async run(entry, context) {
    assert(context.baseline !== undefined, 'no Node events were given to compare with')
    const inNode = context.baseline[entry.name]
    assert(Array.isArray(inNode), `Node gave no events for this adapter: ${show(inNode)}`)
    const here = await answerEvents(entry)
    for (let i = 0; i < Math.max(here.length, inNode.length); i++)
      assertEqual(here[i], inNode[i], `event ${i} against Node's`)
  },
}

/** Every check, in order. `streams the same events as in Node` runs only outside Node. */
export const checks: Check[] = [
  ...basicChecks,
  toolCheck,
  dropCheck,
  foreignCheck,
  committedCheck,
  cutShortCheck,
  sameEventsCheck,
]

/** The events of an adapter's answer, as JSON: what every runtime must stream alike. */
export async function answerEvents(entry: AdapterEntry): Promise<unknown[]> {
  const { adapter } = entry.answer()
  const options = { ...entry.callOptions, tools: toolsFor([entry.toolCall]) }
  const events: unknown[] = JSON.parse(JSON.stringify(await collect(adapter.stream(ask, options))))
  return events
}

/** The done turn of each adapter's answer, made once per run for the cross-provider check. */
export function foreignTurns(entries: readonly AdapterEntry[]): () => Promise<ForeignTurn[]> {
  let made: Promise<ForeignTurn[]> | undefined
  const make = async (entry: AdapterEntry): Promise<ForeignTurn> => {
    const options = { ...entry.callOptions, tools: toolsFor([entry.toolCall]) }
    try {
      const turn = doneTurn(await collect(entry.answer().adapter.stream(ask, options)))
      return { adapter: entry.name, turn, markers: entry.replayMarkers(turn) }
    } catch (error) {
      throw new Error(`${entry.name} could not make its turn: ${describeError(error)}`, {
        cause: error,
      })
    }
  }
  return () => (made ??= Promise.all(entries.map(make)))
}
