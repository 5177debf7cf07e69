import { describe, expect, it } from 'vitest'
import { Chat } from '../../src/core/chat.ts'
import type { AssistantTurn, Conversation } from '../../src/core/conversation.ts'
import { isThinkwireError, type ThinkwireError } from '../../src/core/errors.ts'
import type { Event } from '../../src/core/events.ts'
import { withFallback } from '../../src/middleware/fallback.ts'
import { withRetry } from '../../src/middleware/retry.ts'
import { parseSse } from '../relay/sse-reader.ts'
import { fault as faultNamed, type Fault } from './faults.ts'
import { KEYS, okBody } from './kits.ts'
import {
  expected as expectedOf,
  jsonStatus,
  TABLE,
  type Expect,
  type RelayAnswer,
} from './table.ts'
import { eventually } from '../helpers/eventually.ts'
import { drive, rig, RELAY_URL, TARGETS, type Outcome, type Target } from './rig.ts'

// Every adapter (each provider directly, and `relay()` against an in-process relay serving it)
// against every fault of ./faults.ts, with the outcome ./table.ts expects. Each cell checks:
// - the error: a ThinkwireError of the expected kind and retryable, with no key in its message,
//   and no `done` before it;
// - withRetry and withFallback act only before the first event: a retryable fault before it is
//   retried (or the backup answers), anything else passes through with the first event kept;
// - a Chat's conversation is unchanged (a client that leaves stops it: the question and what
//   arrived stay, as plain text with no items);
// - no upstream body is left open, and a stalled upstream, or one whose client left, was aborted;
// - for the relay: a JSON error with the mapped status before the first event, an SSE `error` in
//   place of `done` after it.

const ask: Conversation = { turns: [{ role: 'user', content: 'Quelle heure est-il ?' }] }

/** The events of a good answer through a target, computed once per target. */
const reference = new Map<Target, Promise<Event[]>>()
function okEvents(target: Target): Promise<Event[]> {
  let events = reference.get(target)
  if (events === undefined) {
    const { adapter, options } = rig(target, [{ body: okBody(target.kit) }], {})
    events = (async () => {
      const out: Event[] = []
      for await (const event of adapter.stream(ask, options)) out.push(event)
      return out
    })()
    reference.set(target, events)
  }
  return events
}

/** A finished earlier exchange, with the items the target's provider would replay. */
async function history(target: Target): Promise<Conversation> {
  const events = await okEvents(target)
  const done = events.at(-1)
  if (done?.type !== 'done') throw new Error('the reference answer has no done')
  return { system: 'Be brief.', turns: [...ask.turns, done.turn] }
}

function expectFailure(outcome: Outcome, expected: Expect): ThinkwireError {
  const { error, events } = outcome
  if (!isThinkwireError(error)) throw new Error(`expected a ThinkwireError, got ${String(error)}`)
  expect({ kind: error.kind, retryable: error.retryable }).toEqual(expected)
  expect(events.some((event) => event.type === 'done')).toBe(false)
  for (const key of Object.values(KEYS)) expect(error.message).not.toContain(key)
  return error
}

/** The first event was yielded exactly for faults after it, and it is the good answer's first. */
async function expectPartial(outcome: Outcome, fault: Fault, target: Target): Promise<void> {
  const first = (await okEvents(target))[0]
  expect(outcome.events).toEqual(fault.phase === 'after' ? [first] : [])
}

function run(target: Target, fault: Fault, specs: Parameters<typeof rig>[1]) {
  const wired = rig(target, specs, fault)
  const controller = new AbortController()
  const start = (stream: AsyncIterable<Event>) =>
    drive(stream, { fault, controller, requested: () => wired.upstream.requests.length > 0 })
  return { ...wired, controller, start }
}

async function plainCell(
  target: Target,
  fault: Fault,
  expected: Expect,
  answer: RelayAnswer,
): Promise<void> {
  const { adapter, options, controller, upstream, start } = run(target, fault, [
    fault.spec(target.kit),
  ])
  const outcome = await start(adapter.stream(ask, { ...options, signal: controller.signal }))
  const error = expectFailure(outcome, expected)
  await expectPartial(outcome, fault, target)
  if (fault.name === 'http-429-retry-after') expect(error.retryAfterMs).toBe(1000)
  if (fault.http !== undefined && target.via === 'direct') expect(error.status).toBe(fault.http)
  const status = jsonStatus(answer, expected)
  if (target.via === 'relay' && status !== undefined) expect(error.status).toBe(status)
  // No upstream call outlives the failure; a stalled one, or one the client left, is aborted.
  await eventually(() => upstream.open() === 0, 'every upstream connection to close')
  if (fault.stalls === true || fault.abort !== undefined) expect(upstream.aborted()).toBe(true)
  expect(upstream.requests).toHaveLength(1)
}

async function retryCell(target: Target, fault: Fault, expected: Expect): Promise<void> {
  const { adapter, options, controller, upstream, start } = run(target, fault, (_, index) =>
    index === 0 ? fault.spec(target.kit) : { body: okBody(target.kit) },
  )
  const retrying = withRetry(adapter, { maxRetries: 1, initialDelayMs: 1, random: () => 0 })
  const outcome = await start(retrying.stream(ask, { ...options, signal: controller.signal }))
  if (fault.phase === 'before' && expected.retryable) {
    expect(outcome.error).toBeUndefined()
    expect(outcome.events).toEqual(await okEvents(target))
    expect(upstream.requests).toHaveLength(2)
  } else {
    expectFailure(outcome, expected)
    await expectPartial(outcome, fault, target)
    expect(upstream.requests).toHaveLength(1)
  }
}

async function fallbackCell(target: Target, fault: Fault, expected: Expect): Promise<void> {
  const primary = run(target, fault, [fault.spec(target.kit)])
  const backup = rig(target, [{ body: okBody(target.kit) }], fault)
  const adapter = withFallback([primary.adapter, backup.adapter])
  const options = { ...primary.options, signal: primary.controller.signal }
  const outcome = await primary.start(adapter.stream(ask, options))
  if (fault.phase === 'before' && expected.retryable) {
    expect(outcome.error).toBeUndefined()
    expect(outcome.events).toEqual(await okEvents(target))
    expect(backup.upstream.requests).toHaveLength(1)
  } else {
    expectFailure(outcome, expected)
    await expectPartial(outcome, fault, target)
    expect(backup.upstream.requests).toHaveLength(0)
  }
}

async function chatCell(target: Target, fault: Fault, expected: Expect): Promise<void> {
  const { adapter, options, controller, start } = run(target, fault, [fault.spec(target.kit)])
  const before = await history(target)
  const copy = structuredClone(before)
  const chat = new Chat({ adapter, conversation: before, options })
  const outcome = await start(chat.send('Et demain ?', { signal: controller.signal }))
  if (fault.abort === undefined) {
    expectFailure(outcome, expected)
    expect(chat.conversation).toBe(before)
    expect(chat.conversation).toEqual(copy)
    expect(chat.status).toBe('error')
    return
  }
  // A stop keeps the question and what arrived as plain text, never items to replay.
  expect(outcome.error).toBeUndefined()
  const turns = chat.conversation.turns
  expect(turns.slice(0, copy.turns.length)).toEqual(copy.turns)
  expect(turns[copy.turns.length]).toEqual({ role: 'user', content: 'Et demain ?' })
  const added = turns.slice(copy.turns.length + 1)
  expect(added.length).toBe(fault.phase === 'after' ? 1 : 0)
  for (const turn of added as AssistantTurn[]) {
    expect(turn.items).toBeUndefined()
    expect(turn.stopReason).toBe('aborted')
  }
}

async function relayCell(target: Target, fault: Fault, expected: Expect, answer: RelayAnswer) {
  const { server, upstream, id } = run(target, fault, [fault.spec(target.kit)])
  if (server === undefined) throw new Error('not a relay target')
  const response = await server.fetch(
    new Request(`${RELAY_URL}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: id, conversation: ask }),
    }),
  )
  const text = await response.text()
  if (answer === 'sse error') {
    expect(response.status).toBe(200)
    const events = parseSse(text).events
    expect(events.map((e) => e.event)).not.toContain('done')
    expect(events.at(-1)?.event).toBe('error')
    const data = JSON.parse(events.at(-1)!.data) as Record<string, unknown>
    expect({ kind: data['kind'], retryable: data['retryable'] }).toEqual(expected)
  } else {
    expect(response.status).toBe(jsonStatus(answer, expected))
    expect(response.headers.get('content-type')).toBe('application/json')
    const { error } = JSON.parse(text) as { error: Record<string, unknown> }
    expect({ kind: error['kind'], retryable: error['retryable'] }).toEqual(expected)
    if (fault.name === 'http-429-retry-after') expect(response.headers.get('retry-after')).toBe('1')
  }
  for (const key of Object.values(KEYS)) expect(text).not.toContain(key)
  await eventually(() => upstream.open() === 0, 'every upstream connection to close')
  if (fault.stalls === true) expect(upstream.aborted()).toBe(true)
}

describe.concurrent('fault matrix', () => {
  for (const target of TARGETS) {
    describe(target.name, () => {
      for (const [name] of TABLE) {
        const { expect: expected, relay: answer } = expectedOf(target.kit, name)
        const fault = faultNamed(name)
        const retry = expected.retryable && fault.phase === 'before' ? 'retried' : 'passed through'
        it(`${name}: ${expected.kind} (${expected.retryable ? 'retryable' : 'final'}), no done, ${retry} by withRetry and withFallback, conversation intact`, async () => {
          const checks = [
            plainCell(target, fault, expected, answer),
            retryCell(target, fault, expected),
            fallbackCell(target, fault, expected),
            chatCell(target, fault, expected),
          ]
          if (target.via === 'relay' && answer !== 'client left') {
            checks.push(relayCell(target, fault, expected, answer))
          }
          await Promise.all(checks)
        })
      }
    })
  }
})
