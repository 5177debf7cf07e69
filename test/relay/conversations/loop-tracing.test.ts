import { describe, expect, it } from 'vitest'
import type { WireApproval } from '../../../src/core/wire.ts'
import type { RelaySpan, SpanExporter } from '../../../src/relay/index.ts'
import { toolRunSpan } from '../../../src/relay/tracing.ts'
import { dataOf, readSse } from '../sse-reader.ts'
import { agentWorld, ALICE, ID, scripted, user } from './agent-world.ts'

// What a loop tells of its server tools (DESIGN §13): each run of a tool step is a span under the
// span of the model call that asked for it, and `server-timing` says how long they ran.

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const CALLER = '00f067aa0ba902b7'
const traceparent = `00-${TRACE}-${CALLER}-01`

function memoryExporter(): SpanExporter & { spans: RelaySpan[] } {
  const spans: RelaySpan[] = []
  return { spans, export: (batch) => void spans.push(...batch) }
}

describe('a loop’s spans and timing', () => {
  it('traces the server tools of a step as a child of the span of the model call that asked', async () => {
    const exporter = memoryExporter()
    const both = scripted('both', [
      {
        toolCalls: [
          { id: 'a', name: 'clock', input: {} },
          { id: 'b', name: 'broken', input: {} },
        ],
      },
      { text: 'Done.' },
    ])
    const world = agentWorld({ models: [both], settings: { tracing: { exporter } } })
    await world.create()
    const response = await world.hosts.request(ID, 'messages', ALICE, {
      body: { model: 'test/both', turn: user('Go'), serverTools: ['clock', 'broken'] },
      headers: { traceparent },
    })
    await readSse(response)
    await world.hosts.settled()
    const [first, tools, second] = exporter.spans
    expect(exporter.spans.map((span) => [span.name, span.kind])).toEqual([
      ['chat both', 'client'],
      ['execute_tool', 'internal'],
      ['chat both', 'client'],
    ])
    // Every span in the caller's trace; the tools' under the first call's.
    expect(exporter.spans.map((span) => span.traceId)).toEqual([TRACE, TRACE, TRACE])
    expect(first!.parentSpanId).toBe(CALLER)
    expect(second!.parentSpanId).toBe(CALLER)
    expect(tools!.parentSpanId).toBe(first!.spanId)
    expect(tools!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.conversation.id': ID,
      'thinkwire.tool.step': 1,
      'thinkwire.tool.names': ['clock', 'broken'],
      'thinkwire.tool.call_ids': ['a', 'b'],
      'error.type': 'tool_error',
    })
    expect(tools!.status).toEqual({ code: 'error', message: '1 of 2 calls failed' })
    expect(tools!.startTimeMs).toBeGreaterThanOrEqual(first!.startTimeMs)
    expect(tools!.endTimeMs).toBeLessThanOrEqual(second!.endTimeMs)
  })

  it('traces a tool run after an approval, and after a restart, under the call that asked', async () => {
    const exporter = memoryExporter()
    const world = agentWorld({ settings: { tracing: { exporter } } })
    await world.create()
    const asked = await readSse(
      await world.hosts.request(ID, 'messages', ALICE, {
        body: { model: 'mock/echo', turn: user('save_note milk'), serverTools: ['save_note'] },
        headers: { traceparent },
      }),
    )
    const [approval] = dataOf<WireApproval>(asked, 'tool-approval')
    world.hosts.restart(ID)
    expect((await world.decide(approval!.approvalId, { approve: true })).status).toBe(202)
    await expect.poll(async () => (await world.shown()).streaming).toBe(false)
    await world.hosts.settled()
    const chat = exporter.spans.find((span) => span.name === 'chat echo')!
    const tool = exporter.spans.find((span) => span.kind === 'internal')!
    expect(tool).toMatchObject({
      name: 'execute_tool save_note',
      traceId: TRACE,
      parentSpanId: chat.spanId,
      status: { code: 'ok' },
    })
    expect(tool.attributes).toMatchObject({
      'gen_ai.tool.name': 'save_note',
      'gen_ai.tool.call.id': approval!.callId,
    })
  })

  it('says in server-timing how long the loop’s server tools ran, to an answer that starts after', async () => {
    const both = scripted('both', [
      {
        toolCalls: [
          { id: 'c', name: 'clock', input: {} },
          { id: 'l', name: 'lookup', input: {} },
        ],
      },
      { text: 'Both answered.' },
    ])
    const world = agentWorld({ models: [both] })
    await world.create()
    const body = {
      model: 'test/both',
      serverTools: ['clock'],
      tools: [{ name: 'lookup', parameters: { type: 'object' } }],
    }
    const asked = await world.send({ ...body, turn: user('Both') })
    // The message's own stream starts before any tool ran.
    expect(asked.headers.get('server-timing')).toBeNull()
    await readSse(asked)
    const timing = /^tools;dur=\d+\.\d;desc="server tools"$/
    // The clock ran; the loop waits on the client's call: a stream attached now says so, and so
    // does the answer to the client's tool turn.
    const follower = await world.stream()
    const attached = await world.hosts.request(ID, 'stream', ALICE, { search: '?follow=true' })
    expect(attached.headers.get('server-timing')).toMatch(timing)
    await attached.body!.cancel()
    expect(follower.status).toBe(204)
    const answered = await world.send({
      ...body,
      turn: { role: 'tool', results: [{ callId: 'l', name: 'lookup', output: 'found' }] },
    })
    expect(answered.headers.get('server-timing')).toMatch(timing)
    await readSse(answered)
  })

  it('makes a span of a run of one call with the tool’s name and the call’s id', () => {
    const span = toolRunSpan({
      parent: { traceId: TRACE, spanId: CALLER },
      conversationId: 'c',
      step: 2,
      calls: [{ callId: 'x', name: 'clock', isError: false }],
      startMs: 1000,
      durationMs: 5,
    })
    expect(span).toMatchObject({
      traceId: TRACE,
      parentSpanId: CALLER,
      name: 'execute_tool clock',
      kind: 'internal',
      startTimeMs: 1000,
      endTimeMs: 1005,
      status: { code: 'ok' },
    })
    expect(span.attributes).toMatchObject({
      'gen_ai.tool.name': 'clock',
      'gen_ai.tool.call.id': 'x',
    })
    expect(span.attributes).not.toHaveProperty('error.type')
  })
})
