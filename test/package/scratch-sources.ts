/**
 * The TypeScript the scratch app type-checks against the packed package. It is kept as text, not
 * as a `.ts` file of the repository, because the repository's own type check would resolve
 * `thinkwire` to `dist/`, which does not exist before `npm run build`.
 */

/** A module importing every entry of the exports map, so each entry's types are loaded. */
export function entriesSource(specifiers: readonly string[]): string {
  const imports = specifiers.map(
    (specifier, index) => `import * as entry${index} from '${specifier}'`,
  )
  const names = specifiers.map((_, index) => `entry${index}`).join(', ')
  return `${imports.join('\n')}\n\nexport const entries: readonly object[] = [${names}]\n`
}

/**
 * The compiler options both checks share: strict, and the declaration files checked too (the
 * test judges only the errors in the app and in thinkwire's files: some of the peers' own
 * declarations do not compile with every option, e.g. @langchain/core's with
 * `exactOptionalPropertyTypes` or without `ESNext.Disposable`).
 */
const shared = {
  target: 'ES2022',
  lib: ['ES2023', 'DOM', 'DOM.Iterable'],
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  // No ambient @types (a browser app has no @types/node): a declaration file that needs a type
  // package the app did not install fails instead of finding it by accident.
  types: [],
}

/** `tsconfig.json` (Node's resolution) or `tsconfig.bundler.json` (a bundler's), for `tsc -p`. */
export const tsconfigs: Readonly<Record<string, object>> = {
  'tsconfig.json': {
    compilerOptions: { ...shared, module: 'nodenext', moduleResolution: 'nodenext' },
    include: ['src'],
  },
  'tsconfig.bundler.json': {
    compilerOptions: {
      ...shared,
      module: 'preserve',
      moduleResolution: 'bundler',
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
    },
    include: ['src'],
  },
}

/** A user's code on the public names of every entry, with their options and types. */
export const usageSource = `
import {
  Chat,
  ThinkwireError,
  complete,
  completeJson,
  createRegistry,
  isThinkwireError,
  runTools,
  trimConversation,
  withFallback,
  withRateLimit,
  withRetry,
  type Adapter,
  type AssistantTurn,
  type CallOptions,
  type Capabilities,
  type Conversation,
  type Event,
  type ToolResult,
  type Usage,
} from 'thinkwire'
import { guardStream } from 'thinkwire/kit'
import { anthropic, createAnthropic } from 'thinkwire/anthropic'
import { anthropicCapabilities, anthropicModels } from 'thinkwire/anthropic/models'
import { openai } from 'thinkwire/openai'
import { deepseek, openaiCompatible, presets } from 'thinkwire/openai-compatible'
import { gemini, geminiInteractions } from 'thinkwire/gemini'
import { createMock, mock, type MockAdapter } from 'thinkwire/mock'
import { fromLangChain } from 'thinkwire/langchain'
import { createRelay, type Relay } from 'thinkwire/relay'
import { relay, relayConversation, type RelayConversation } from 'thinkwire/client'
import { useChat, useConversation, type UseChatOptions, type UseChatResult } from 'thinkwire/react'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'

const conversation: Conversation = {
  system: 'Be brief.',
  turns: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
}
const options: CallOptions = { thinking: 'medium', maxTokens: 1024, signal: AbortSignal.timeout(1_000) }

const scripted: MockAdapter = mock({ script: [{ text: 'Hello' }], chunkSize: 4 })
export const adapters: Adapter[] = [
  anthropic({ apiKey: 'key', model: 'claude-sonnet-5', baseURL: 'https://a.test', fetch, headers: {} }),
  openai({ apiKey: 'key', model: 'gpt-5.4', organization: 'org', project: 'project' }),
  openaiCompatible({ provider: 'vllm', baseURL: 'http://localhost:8000/v1', model: 'qwen3' }),
  deepseek({ apiKey: 'key', model: 'deepseek-v4-flash' }),
  gemini({ apiKey: 'key', model: 'gemini-3-flash-preview', baseURL: 'https://g.test', fetch }),
  geminiInteractions({ apiKey: 'key', model: 'gemini-3-flash-preview', baseURL: 'https://g.test', fetch }),
  scripted,
  relay({ url: 'https://relay.test', model: 'mock/echo', headers: { authorization: 'Bearer t' } }),
  withRetry(withFallback([scripted, mock()]), { maxRetries: 2 }),
  withRateLimit(scripted, { requestsPerMinute: 60 }),
]
export const presetNames: string[] = Object.keys(presets)
export const listed: Capabilities[] = anthropicModels.map((id) => anthropicCapabilities(id))
export const fromChain = (model: BaseChatModel): Adapter => fromLangChain(model)

/** Every event, each field typed. */
export function describe(event: Event): string {
  switch (event.type) {
    case 'thinking':
    case 'text':
      return event.text
    case 'tool-call':
      return event.call.id + event.call.name + JSON.stringify(event.call.input)
    case 'done':
      return event.turn.text
  }
}

export async function talk(adapter: Adapter): Promise<Usage> {
  const turn: AssistantTurn = await complete(adapter, conversation, options)
  const { value } = await completeJson<{ city: string }>(adapter, conversation, {
    jsonSchema: { type: 'object', properties: { city: { type: 'string' } } },
  })
  const chat = new Chat({ adapter, conversation, options })
  for await (const event of chat.send('And then?', { thinking: 'low' })) describe(event)
  const result: ToolResult = { callId: 'c1', name: 'weather', output: value.city, isError: false }
  const next: Conversation = { turns: [...chat.conversation.turns, { role: 'tool', results: [result] }] }
  await runTools(adapter, trimConversation(next, { maxTurns: 20 }), {
    tools: {
      weather: { parameters: { type: 'object' }, execute: (input: unknown) => String(input) },
    },
  })
  return turn.usage
}

export function explain(error: unknown): string | undefined {
  if (!isThinkwireError(error)) return undefined
  const typed: ThinkwireError = error
  return [typed.kind, typed.retryable, typed.retryAfterMs, typed.status, typed.provider].join()
}
export const refused = new ThinkwireError({ kind: 'auth', message: 'no key', status: 401 })

export const registry = createRegistry({
  anthropic: createAnthropic({ apiKey: 'key' }),
  mock: createMock({ delayMs: 10 }),
})
export const server: Relay = createRelay({ registry, auth: ['a-client-token-of-32-characters'] })
export const answer: Promise<Response> = server.fetch(new Request('https://relay.test/v1/models'))
export const durable: RelayConversation = relayConversation({ url: '', model: 'mock/echo' })

export function useBoth(): UseChatResult['messages'] {
  const chatOptions: UseChatOptions = {
    adapter: relay({ url: '', model: 'mock/echo' }),
    thinking: 'low',
    onFinish: (turn: AssistantTurn) => turn.text,
    onError: (error: ThinkwireError) => error.kind,
  }
  const { messages, send, stop } = useChat(chatOptions)
  const stored = useConversation(durable)
  void send('Hi')
  stop()
  return stored.status === 'ready' ? messages : stored.messages
}

// The types are real, not \`any\`: each line below must be an error.
// @ts-expect-error a Conversation needs turns
export const noTurns: Conversation = {}
// @ts-expect-error an unknown event type
export const badEvent: Event = { type: 'usage', text: '' }
// @ts-expect-error anthropic() needs a model
anthropic({ apiKey: 'key' })
// @ts-expect-error createRelay() answers a Request
void server.fetch('https://relay.test/v1/models')
export const kit: typeof guardStream = guardStream
`
