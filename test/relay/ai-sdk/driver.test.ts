/**
 * The `/v1/ai-sdk/chat` driver of the dialect conformance table, on an in-process relay: a few of
 * the table's cases, so that the driver writes requests the relay takes and reads answers as the
 * AI SDK's client does, before the table runs it.
 */
import { describe, expect, it } from 'vitest'
import { mock } from '../../../src/providers/mock/index.ts'
import { createRelay } from '../../../src/relay/index.ts'
import { aiSdkDriver } from '../dialects/ai-sdk-driver.ts'
import type { DriverCall, DriverOutcome } from '../dialects/driver.ts'

const TOKEN = 'token-ai-sdk-driver-0123'
const claude = mock({
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  script: (call) =>
    call.conversation.turns.at(-1)?.role === 'tool'
      ? { text: 'Both are in.' }
      : call.options.tools !== undefined
        ? {
            thinking: 'Two tools at once.',
            toolCalls: [
              { id: 'c1', name: 'weather', input: { city: 'Paris' } },
              { id: 'c2', name: 'time', input: { zone: 'CET' } },
            ],
          }
        : { thinking: 'Short.', text: 'Hello.', usage: { inputTokens: 7, outputTokens: 9 } },
})
const echo = mock()
const failing = mock({
  model: 'fail',
  script: [{ text: 'Halb', fail: { kind: 'server', afterEvents: 1, message: 'broke' } }],
})
const relay = createRelay({
  providers: { anthropic: [claude], mock: [echo, failing] },
  auth: [TOKEN],
  sealKeys: ['seal-ai-sdk-driver-Qm4Rt8Wz2Xc6Vb0Nk5Lp7'],
})

async function run(call: DriverCall): Promise<DriverOutcome> {
  const { body, headers } = aiSdkDriver.request(call)
  const response = await relay.fetch(
    new Request(`http://relay.test${aiSdkDriver.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers, ...aiSdkDriver.auth(TOKEN) },
      body: JSON.stringify(body),
    }),
  )
  return aiSdkDriver.read(response, call)
}

async function answer(call: DriverCall) {
  const outcome = await run(call)
  if (!outcome.ok) throw new Error(outcome.message)
  return outcome.answer
}

const CLAUDE = 'anthropic/claude-sonnet-4-5'
const tools = [
  { name: 'weather', description: 'Weather', parameters: { type: 'object' } },
  { name: 'time', description: 'Time', parameters: { type: 'object' } },
]

describe('the /v1/ai-sdk/chat conformance driver', () => {
  it('reads text, thinking and usage', async () => {
    const got = await answer({ model: CLAUDE, turns: [{ role: 'user', text: 'Hi' }], stream: true })
    expect(got).toMatchObject({
      text: 'Hello.',
      thinking: 'Short.',
      toolCalls: [],
      usage: { inputTokens: 7, outputTokens: 9 },
    })
  })

  it('reads parallel calls, then sends their results in the message as the client does', async () => {
    const ask = { role: 'user' as const, text: 'Weather and time?' }
    const calls = await answer({ model: CLAUDE, turns: [ask], tools, stream: true })
    expect(calls.toolCalls.map((call) => call.id)).toEqual(['c1', 'c2'])
    const results = [
      { id: 'c1', name: 'weather', output: 'sunny' },
      { id: 'c2', name: 'time', output: 'noon' },
    ]
    const turns = [
      ask,
      { role: 'assistant' as const, answer: calls },
      { role: 'tool' as const, results },
    ]
    const done = await answer({ model: CLAUDE, turns, tools, stream: true })
    expect(done.text).toBe('Both are in.')
    expect(done.toolCalls).toEqual([])
    // The second answer goes on with the first's message: its step is the message's second.
    expect((done.echo as { id: string }).id).toBe((calls.echo as { id: string }).id)
    expect(claude.calls.at(-1)?.request.slice(1)).toEqual([
      { role: 'assistant', replayed: expect.any(Array) },
      {
        role: 'tool',
        results: [
          { callId: 'c1', name: 'weather', output: 'sunny' },
          { callId: 'c2', name: 'time', output: 'noon' },
        ],
      },
    ])
    // And a message after the loop sends the one message the client holds.
    const next = await answer({
      model: CLAUDE,
      turns: [...turns, { role: 'assistant', answer: done }, { role: 'user', text: 'Thanks' }],
      stream: true,
    })
    expect(next.text).toBe('Hello.')
    // Both steps of the message go back verbatim, each from its own record.
    const sent = claude.calls.at(-1)!.request
    expect(sent.map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ])
    expect(sent[1]).toHaveProperty('replayed')
    expect(sent[3]).toHaveProperty('replayed')
  })

  it('reports an error after the first part, and a refusal before any', async () => {
    const ask = [{ role: 'user' as const, text: 'Hi' }]
    expect(await run({ model: 'mock/fail', turns: ask, stream: true })).toEqual({
      ok: false,
      status: 200,
      message: 'broke',
      afterFirstEvent: true,
    })
    expect(await run({ model: 'mock/none', turns: ask, stream: true })).toMatchObject({
      ok: false,
      status: 404,
      afterFirstEvent: false,
    })
  })

  it('carries an answer to another provider, which gets it as text', async () => {
    const first = await answer({
      model: CLAUDE,
      turns: [{ role: 'user', text: 'Hi' }],
      stream: true,
    })
    await answer({
      model: 'mock/echo',
      turns: [
        { role: 'user', text: 'Hi' },
        { role: 'assistant', answer: first },
        { role: 'user', text: 'Again' },
      ],
      stream: true,
    })
    expect(echo.calls.at(-1)?.request[1]).toEqual({
      role: 'assistant',
      text: 'Hello.',
      toolCalls: [],
    })
  })
})
