import { describe, expect, it } from 'vitest'
import type { Adapter, CallOptions } from '../src/core/adapter.ts'
import type { AssistantTurn, Conversation } from '../src/core/conversation.ts'
import { isThinkwireError } from '../src/core/errors.ts'
import type { Event } from '../src/core/events.ts'

/** One adapter wired to a fake upstream. */
export type ContractHarness = {
  adapter: Adapter
  /** True once the upstream request was aborted (its signal fired, or its body was cancelled). */
  upstreamAborted(): boolean
  /** The last request the upstream received (a parsed body), for replay checks. */
  lastRequest(): unknown
  /** How many requests the upstream received. */
  requestCount(): number
}

/** How one adapter's test file plugs into the shared contract. */
export type ContractSetup = {
  /** Options every call passes (e.g. a thinking level the fixtures were made with). */
  callOptions?: CallOptions | undefined
  /** An adapter (of `model`, when given) whose upstream answers with deltas and a complete turn. */
  answer(model?: string): ContractHarness
  /** An adapter whose upstream fails after the first event. */
  failAfterFirstEvent(): ContractHarness
  /** An adapter whose upstream sends one event and then stays silent until aborted. */
  stallAfterFirstEvent(): ContractHarness
  /** Strings of a done turn that appear in a request only when its items are replayed verbatim. */
  replayMarkers(turn: AssistantTurn): string[]
  /** Contract tests this adapter cannot run, each with its reason. */
  skip?: { test: string; reason: string }[] | undefined
}

const ask: Conversation = { turns: [{ role: 'user', content: 'What is 2 + 2? Think first.' }] }

async function collect(stream: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = []
  for await (const event of stream) events.push(event)
  return events
}

async function failure(stream: AsyncIterable<Event>): Promise<{ events: Event[]; error: unknown }> {
  const events: Event[] = []
  try {
    for await (const event of stream) events.push(event)
  } catch (error) {
    return { events, error }
  }
  throw new Error(`expected the stream to fail, it yielded ${events.length} events and ended`)
}

/** Runs the contract every adapter must keep (DESIGN §1–2) against one adapter. */
export function describeAdapterContract(name: string, setup: ContractSetup): void {
  const skipped = new Map((setup.skip ?? []).map((s) => [s.test, s.reason]))
  const test = (title: string, fn: () => Promise<void>) => {
    const reason = skipped.get(title)
    if (reason === undefined) it(title, fn)
    else it.skip(`${title} (skipped: ${reason})`, fn)
  }
  const options = setup.callOptions ?? {}

  describe(`${name}: adapter contract`, () => {
    test('yields deltas in order and exactly one done, last, that agrees with them', async () => {
      const { adapter } = setup.answer()
      const events = await collect(adapter.stream(ask, options))
      const dones = events.filter((e) => e.type === 'done')
      expect(dones).toHaveLength(1)
      expect(events.at(-1)?.type).toBe('done')
      const turn = (events.at(-1) as Extract<Event, { type: 'done' }>).turn
      let text = ''
      let thinking = ''
      const calls = []
      for (const event of events) {
        if (event.type === 'text') text += event.text
        if (event.type === 'thinking') thinking += event.text
        if (event.type === 'tool-call') calls.push(event.call)
        if (event.type === 'text' || event.type === 'thinking') expect(event.text).not.toBe('')
      }
      expect(events.length).toBeGreaterThan(1)
      expect(typeof turn.text).toBe('string')
      expect(turn.text).toBe(text)
      expect(turn.thinking ?? '').toBe(thinking)
      expect(turn.toolCalls ?? []).toEqual(calls)
      expect(turn.role).toBe('assistant')
      expect(turn.items?.provider).toBe(adapter.provider)
      expect(turn.items?.model).toBe(adapter.model)
      expect(turn.usage.inputTokens).toBeGreaterThanOrEqual(0)
      expect(turn.usage.outputTokens).toBeGreaterThanOrEqual(0)
    })

    test('throws a ThinkwireError and yields no done when the stream fails after the first event', async () => {
      const { adapter } = setup.failAfterFirstEvent()
      const { events, error } = await failure(adapter.stream(ask, options))
      expect(isThinkwireError(error)).toBe(true)
      expect(events.length).toBeGreaterThanOrEqual(1)
      expect(events.some((e) => e.type === 'done')).toBe(false)
    })

    test('cancels the upstream request when the consumer stops after the first event', async () => {
      const harness = setup.stallAfterFirstEvent()
      for await (const event of harness.adapter.stream(ask, options)) {
        expect(event.type).not.toBe('done')
        break
      }
      await expect.poll(() => harness.upstreamAborted()).toBe(true)
    })

    test('throws an aborted error and cancels the upstream when the signal aborts mid-stream', async () => {
      const harness = setup.stallAfterFirstEvent()
      const controller = new AbortController()
      const { events, error } = await failure(
        (async function* () {
          for await (const event of harness.adapter.stream(ask, {
            ...options,
            signal: controller.signal,
          })) {
            yield event
            controller.abort()
          }
        })(),
      )
      expect(events).toHaveLength(1)
      expect(isThinkwireError(error) && error.kind).toBe('aborted')
      await expect.poll(() => harness.upstreamAborted()).toBe(true)
    })

    test('makes no request when the signal is already aborted', async () => {
      const harness = setup.answer()
      const controller = new AbortController()
      controller.abort()
      const { error } = await failure(
        harness.adapter.stream(ask, { ...options, signal: controller.signal }),
      )
      expect(isThinkwireError(error) && error.kind).toBe('aborted')
      expect(harness.requestCount()).toBe(0)
    })

    test("replays its own turn's items verbatim to the same model and thinking mode", async () => {
      const harness = setup.answer()
      const first = await collect(harness.adapter.stream(ask, options))
      const turn = (first.at(-1) as Extract<Event, { type: 'done' }>).turn
      const markers = setup.replayMarkers(turn)
      expect(markers.length).toBeGreaterThan(0)
      const next: Conversation = {
        turns: [...ask.turns, turn, { role: 'user', content: 'And 3 + 3?' }],
      }
      await collect(harness.adapter.stream(next, options))
      const sent = JSON.stringify(harness.lastRequest())
      for (const marker of markers) expect(sent).toContain(marker)
    })

    test('does not replay its items to another model', async () => {
      const first = await collect(setup.answer().adapter.stream(ask, options))
      const turn = (first.at(-1) as Extract<Event, { type: 'done' }>).turn
      const other = setup.answer('another-model')
      expect(other.adapter.model).toBe('another-model')
      const next: Conversation = {
        turns: [...ask.turns, turn, { role: 'user', content: 'And 3 + 3?' }],
      }
      await collect(other.adapter.stream(next, options))
      const sent = JSON.stringify(other.lastRequest())
      for (const marker of setup.replayMarkers(turn)) expect(sent).not.toContain(marker)
      if (turn.text !== '') expect(sent).toContain(JSON.stringify(turn.text).slice(1, -1))
    })

    test('does not replay its items under another thinking mode', async () => {
      const harness = setup.answer()
      const first = await collect(harness.adapter.stream(ask, options))
      const turn = (first.at(-1) as Extract<Event, { type: 'done' }>).turn
      const other = options.thinking === 'off' ? 'high' : 'off'
      const next: Conversation = {
        turns: [...ask.turns, turn, { role: 'user', content: 'And 3 + 3?' }],
      }
      await collect(harness.adapter.stream(next, { ...options, thinking: other }))
      const sent = JSON.stringify(harness.lastRequest())
      for (const marker of setup.replayMarkers(turn)) expect(sent).not.toContain(marker)
    })
  })
}
