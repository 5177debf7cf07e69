/**
 * A conversation host with tool loops (DESIGN §13) in Node, on SQLite in memory: the Worker's
 * server tools (`clock`, `save_note`) and tools of the tests' own, the offline mock model and
 * scripted ones, and helpers to send and read. Every wait is a gate the test opens.
 */
import { expect } from 'vitest'
import type { Turn } from '../../../src/core/conversation.ts'
import type { ProviderEntry } from '../../../src/core/registry.ts'
import type { WirePending } from '../../../src/core/wire.ts'
import { createMock, mock, type MockResponse } from '../../../src/providers/mock/index.ts'
import type { ConversationHostSettings, ServerTools } from '../../../src/relay/index.ts'
import { serverTools } from '../../../worker/tools.ts'
import { memoryHosts } from '../../helpers/memory-hosts.ts'

export const ID = 'AAAAAAAAAAAAAAAAAAAAAA'
export const ALICE = 'client-alice'
export const BOB = 'client-bob'
export const user = (content: string) => ({ role: 'user' as const, content })

/** Promises that settle when the test lets them: one `open()` lets the oldest go. */
export function gate() {
  const waiting: (() => void)[] = []
  let allowed = 0
  return {
    wait(): Promise<void> {
      if (allowed > 0) {
        allowed--
        return Promise.resolve()
      }
      return new Promise((go) => waiting.push(go))
    },
    /** Lets `n` more waits go, those waiting first. */
    open(n = 1) {
      for (let i = 0; i < n; i++) {
        const go = waiting.shift()
        if (go === undefined) allowed++
        else go()
      }
    },
    get waiting() {
      return waiting.length
    },
  }
}

/**
 * The `test/gated` model: it says `text` a character at a time, each when the test lets it go
 * (`letters.open(n)`).
 */
export function gatedModel(text: string) {
  const letters = gate()
  const adapter = mock({
    provider: 'test',
    model: 'gated',
    script: [{ text }],
    chunkSize: 1,
    pace: () => letters.wait(),
  })
  return { adapter, letters }
}

/** A model of the test provider answering `script` in order (the last one repeating). */
export function scripted(
  model: string,
  script: MockResponse[] | ((index: number) => MockResponse),
) {
  return mock({
    provider: 'test',
    model,
    script: typeof script === 'function' ? (call) => script(call.index) : script,
  })
}

export type Shown = {
  conversation: { turns: Turn[] }
  streaming: boolean
  lastEventId: number
  lastError?: { kind: string; message: string }
  pending?: WirePending
}

/**
 * A world of hosts: `slow` is a server tool that runs until its gate opens (or its signal aborts),
 * `broken` one that throws a message holding a key; `models` adds scripted models.
 */
export function agentWorld(
  options: {
    models?: ReturnType<typeof mock>[]
    settings?: Partial<ConversationHostSettings>
    tools?: ServerTools
  } = {},
) {
  const slowGate = gate()
  const slow = { started: 0, signals: [] as AbortSignal[] }
  const tools: ServerTools = {
    ...serverTools,
    slow: {
      description: 'Takes its time.',
      parameters: { type: 'object', properties: {} },
      async execute(_input, { signal }) {
        slow.started++
        slow.signals.push(signal)
        await slowGate.wait()
        return 'slow and done'
      },
    },
    broken: {
      parameters: { type: 'object', properties: {} },
      execute() {
        throw new Error('the API said: invalid x-api-key sk-ant-api03-Xq7Lm2Np9Rs4Tu6Vw8Yz0Ab3Cd5')
      },
    },
    ...options.tools,
  }
  const providers: { readonly [provider: string]: ProviderEntry } = {
    mock: createMock(),
    test: options.models ?? [scripted('idle', [{ text: 'Idle.' }])],
  }
  const hosts = memoryHosts({ providers, settings: options.settings, tools })
  const create = async (id = ID, clientId = ALICE) => {
    const response = await hosts.request(id, 'create', clientId, { body: {} })
    expect(response.status).toBe(201)
  }
  const send = (body: Record<string, unknown>, id = ID, clientId = ALICE) =>
    hosts.request(id, 'messages', clientId, { body })
  const ask = (content: string, more: Record<string, unknown> = {}) =>
    send({ model: 'mock/echo', turn: user(content), ...more })
  const shown = async (id = ID): Promise<Shown> => {
    const response = await hosts.request(id, 'get', ALICE)
    expect(response.status).toBe(200)
    return (await response.json()) as Shown
  }
  const decide = (approvalId: string, body: unknown, clientId = ALICE, id = ID) =>
    hosts.request(id, 'approve', clientId, { body, path: `/${approvalId}` })
  /** The stream of what runs now, from its start (to its end). */
  const stream = (id = ID) => hosts.request(id, 'stream', ALICE)
  return { hosts, tools, slow, slowGate, create, send, ask, shown, decide, stream }
}
