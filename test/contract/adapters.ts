/**
 * The one table of every adapter the contract runs against. Each entry builds its adapter around
 * a fake upstream that speaks the provider's real wire format (a replaying `fetch`, which uses only
 * web APIs, or a fake chat model), and says what is provider-specific: its replay markers, the
 * option it drops, its request rules, and any check or runtime it cannot meet, with the reason.
 */
import { relay } from '../../src/client/index.ts'
import type { Adapter } from '../../src/core/adapter.ts'
import { abortedError } from '../../src/core/errors.ts'
import { withFallback } from '../../src/middleware/fallback.ts'
import { withRateLimit } from '../../src/middleware/rate-limit.ts'
import { withRetry } from '../../src/middleware/retry.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { gemini, geminiInteractions } from '../../src/providers/gemini/index.ts'
import { fromLangChain } from '../../src/providers/langchain/index.ts'
import { mock, type MockResponse } from '../../src/providers/mock/index.ts'
import {
  openaiCompatible,
  presets,
  type OpenAICompatibleOptions,
} from '../../src/providers/openai-compatible/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { inProcessRelay, RELAY_URL } from '../client/helpers.ts'
import { replayFetch, type ReplaySpec } from '../helpers/replay-fetch.ts'
import type { CallOptions } from '../../src/core/adapter.ts'
import type { AdapterEntry, Upstream } from './checks.ts'
import {
  anthropicAnswer,
  anthropicCutShort,
  anthropicFailure,
  anthropicMarkers,
  anthropicRequestProblems,
  anthropicStreamed,
  anthropicToolCall,
} from './upstreams/anthropic.ts'
import {
  chatRequestProblems,
  deepseekAnswer,
  deepseekMarkers,
  deepseekStreamed,
  deepseekToolCall,
  openrouterAnswer,
  openrouterFailure,
  openrouterMarkers,
  openrouterStreamed,
  openrouterToolCall,
  reasoningCutShort,
  thinkTagsAnswer,
  thinkTagsCutShort,
  thinkTagsMarkers,
  thinkTagsStreamed,
  thinkTagsToolCall,
} from './upstreams/chat-completions.ts'
import {
  geminiAnswer,
  geminiCutShort,
  geminiMarkers,
  geminiRequestProblems,
  geminiStreamed,
  geminiToolCall,
} from './upstreams/gemini.ts'
import {
  langchainAnswer,
  langchainCutShort,
  langchainMarkers,
  langchainRequestProblems,
  langchainStreamed,
  langchainToolCall,
  ScriptedChatModel,
  type LangChainScript,
} from './upstreams/langchain.ts'
import {
  mockAnswer,
  mockCutShort,
  mockFailure,
  mockMarkers,
  mockRequestProblems,
  mockStall,
  mockStreamed,
  mockToolCall,
  overMock,
} from './upstreams/mock.ts'
import {
  openaiAnswer,
  openaiCutShort,
  openaiFailure,
  openaiMarkers,
  openaiRequestProblems,
  openaiStreamed,
  openaiToolCall,
} from './upstreams/openai.ts'
import {
  interactionsAnswer,
  interactionsCutShort,
  interactionsMarkers,
  interactionsRequestProblems,
  interactionsStreamed,
  interactionsToolCall,
} from './upstreams/gemini-interactions.ts'
import { answering, cutting, overFetch, stalling, type Wire } from './upstreams/wire.ts'

/** Builds an adapter of `model` that reaches its upstream through `fetch`. */
type OverFetch = (fetch: typeof globalThis.fetch, model: string) => Adapter

/**
 * The four scenarios of an adapter whose upstream is reached through `fetch`: a replaying fetch
 * that answers every request with the upstream's answer (or its failure, a stall after the first
 * delta, or an answer the output limit cut in its thinking).
 */
function fetchScenarios(
  build: OverFetch,
  model: string,
  wire: (model: string) => Wire,
  failure: (model: string) => ReplaySpec,
  cutShort: (model: string) => Wire,
): Pick<AdapterEntry, 'answer' | 'failAfterFirstEvent' | 'stallAfterFirstEvent' | 'cutShort'> {
  const over = (spec: ReplaySpec, as = model): Upstream => {
    const replay = replayFetch([spec])
    return overFetch(build(replay.fetch, as), replay)
  }
  return {
    answer: (other) => over(answering(wire(other ?? model)), other),
    failAfterFirstEvent: () => over(failure(model)),
    stallAfterFirstEvent: () => over(stalling(wire(model))),
    cutShort: () => over(answering(cutShort(model))),
  }
}

const MOCK_ONLY = 'the mock takes every call option, so it has none to drop'

/** A Monday at noon UTC, off-peak for DeepSeek: the hour every priced contract turn is sent at. */
const contractClock = (): number => Date.parse('2026-12-07T12:00:00Z')

/** Options every model of an adapter that drops nothing must take without a warning. */
const EVERY_OPTION: CallOptions = { thinking: 'high', temperature: 0.5, maxTokens: 512 }

/** The drop check, for an adapter whose model takes every option: it must warn of none. */
function takesAll(because: string): { takesAll: CallOptions; because: string } {
  return { takesAll: EVERY_OPTION, because }
}

/** An OpenAI-compatible adapter on a server's settings (a preset, or none: inline tags only). */
function compatible(options: Omit<OpenAICompatibleOptions, 'fetch' | 'model'>): OverFetch {
  return (fetch, model) => openaiCompatible({ ...options, model, fetch })
}

/** A LangChain adapter over a scripted fake chat model, seen as an upstream. */
function overLangChain(script: LangChainScript, model = 'fake-chat'): Upstream {
  const chatModel = new ScriptedChatModel(script)
  return {
    adapter: fromLangChain(chatModel, { provider: 'langchain', model }),
    upstreamAborted: () => chatModel.calls.at(-1)?.signal?.aborted === true,
    lastRequest: () => {
      const call = chatModel.calls.at(-1)
      return call === undefined ? undefined : { messages: call.messages, tools: call.tools }
    },
    requestCount: () => chatModel.calls.length,
  }
}

/** A relay client, through a relay served in-process, to a mock answering `then`. */
function overRelay(then: MockResponse, model = 'relayed'): Upstream {
  const upstream = mock({ model, script: [then] })
  const server = inProcessRelay({ providers: { mock: [upstream] } })
  const adapter = relay({ url: RELAY_URL, model: `mock/${model}`, fetch: server.fetch })
  return {
    ...overMock(adapter, upstream),
    // The relay's own requests: an aborted signal must stop the client before it sends one.
    requestCount: () => server.requests.length,
  }
}

/** A clock that moves only when something waits on it, so rate-limit waits take no time. */
function instantClock() {
  let time = 1_000_000
  return {
    now: () => time,
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted === true) throw abortedError('mock', signal.reason)
      time += ms
    },
  }
}

/** Mocks of `model` behind a wrapper, the mock that answers answering `then`. */
type Wrapped = (model: string, then: MockResponse) => Upstream

/** A middleware entry: the wrapper is the adapter, mocks are its upstream. */
function middlewareEntry(name: string, model: string, wrap: Wrapped): AdapterEntry {
  return {
    name,
    answer: (other) => wrap(other ?? model, mockAnswer(name)),
    failAfterFirstEvent: () => wrap(model, mockFailure),
    stallAfterFirstEvent: () => wrap(model, mockStall),
    cutShort: () => wrap(model, mockCutShort),
    replayMarkers: mockMarkers,
    streamed: mockStreamed(name),
    toolCall: mockToolCall,
    requestProblems: mockRequestProblems,
    drops: takesAll(MOCK_ONLY),
  }
}

const anthropicOver: OverFetch = (fetch, model) =>
  anthropic({ apiKey: 'sk-ant-contract-0123456789', model, fetch, dangerouslyAllowBrowser: true })

const openaiOver: OverFetch = (fetch, model) =>
  openai({ apiKey: 'sk-contract-0123456789', model, fetch, dangerouslyAllowBrowser: true })

const geminiOver: OverFetch = (fetch, model) =>
  gemini({ apiKey: 'AIzaContractKeyThatIsNotReal00000', model, fetch })

const interactionsOver: OverFetch = (fetch, model) =>
  geminiInteractions({ apiKey: 'AIzaContractKeyThatIsNotReal00000', model, fetch })

/** Every adapter, once. */
export const adapters: AdapterEntry[] = [
  {
    name: 'anthropic',
    callOptions: { thinking: 'high' },
    ...fetchScenarios(
      anthropicOver,
      'claude-sonnet-5',
      anthropicAnswer,
      (model) => answering(anthropicFailure(model)),
      anthropicCutShort,
    ),
    replayMarkers: anthropicMarkers,
    streamed: anthropicStreamed,
    toolCall: anthropicToolCall,
    drops: { options: { temperature: 0.3 }, warns: 'temperature' },
    requestProblems: anthropicRequestProblems,
  },
  {
    name: 'openai',
    callOptions: { thinking: 'high' },
    ...fetchScenarios(
      openaiOver,
      'gpt-5.4',
      openaiAnswer,
      (model) => answering(openaiFailure(model)),
      openaiCutShort,
    ),
    replayMarkers: openaiMarkers,
    streamed: openaiStreamed,
    toolCall: openaiToolCall,
    drops: { options: { temperature: 0.3 }, warns: 'temperature' },
    requestProblems: openaiRequestProblems,
  },
  {
    name: 'gemini',
    ...fetchScenarios(
      geminiOver,
      'gemini-3-flash-preview',
      geminiAnswer,
      (model) => cutting(geminiAnswer(model)),
      geminiCutShort,
    ),
    replayMarkers: geminiMarkers,
    streamed: geminiStreamed,
    toolCall: geminiToolCall,
    // Gemini 3 takes every option (thinking 'off' becomes its lowest level); Gemini 2.0 takes no
    // thinking setting at all.
    drops: { options: { thinking: 'high' }, warns: 'thinking', model: 'gemini-2.0-flash' },
    requestProblems: (body) => geminiRequestProblems(body),
  },
  {
    name: 'gemini interactions',
    ...fetchScenarios(
      interactionsOver,
      'gemini-3-flash-preview',
      interactionsAnswer,
      (model) => cutting(interactionsAnswer(model)),
      interactionsCutShort,
    ),
    replayMarkers: interactionsMarkers,
    streamed: interactionsStreamed,
    toolCall: interactionsToolCall,
    // Gemini 3 takes every option (thinking 'off' becomes its lowest level); Gemini 2.0 takes no
    // thinking setting at all.
    drops: { options: { thinking: 'high' }, warns: 'thinking', model: 'gemini-2.0-flash' },
    requestProblems: interactionsRequestProblems,
  },
  {
    name: 'openai-compatible (deepseek)',
    ...fetchScenarios(
      // Its turns are priced by the hour they are sent: a clock that never moves keeps Node's
      // events and another runtime's alike, however far apart the two runs are.
      compatible({ ...presets.deepseek, apiKey: 'sk-contract-000000000000', now: contractClock }),
      'deepseek-v4-flash',
      deepseekAnswer,
      (model) => cutting(deepseekAnswer(model)),
      (model) => reasoningCutShort(model),
    ),
    replayMarkers: deepseekMarkers,
    streamed: deepseekStreamed,
    toolCall: deepseekToolCall,
    requestProblems: (body) => chatRequestProblems(body, true),
    drops: takesAll(
      'DeepSeek takes every call option (thinking maps to its levels); the think-tags entry covers dropping',
    ),
  },
  {
    name: 'openai-compatible (think tags)',
    ...fetchScenarios(
      compatible({ provider: 'local', baseURL: 'http://llm.test/v1' }),
      'qwen3-8b',
      thinkTagsAnswer,
      (model) => cutting(thinkTagsAnswer(model)),
      thinkTagsCutShort,
    ),
    replayMarkers: thinkTagsMarkers,
    streamed: thinkTagsStreamed,
    toolCall: thinkTagsToolCall,
    drops: { options: { thinking: 'high' }, warns: 'thinking' },
    requestProblems: (body) => chatRequestProblems(body),
  },
  {
    name: 'openai-compatible (openrouter)',
    ...fetchScenarios(
      compatible({ ...presets.openrouter, apiKey: 'sk-or-contract-0000' }),
      'anthropic/claude-sonnet-4.5',
      openrouterAnswer,
      (model) => answering(openrouterFailure(model)),
      (model) => reasoningCutShort(model, true),
    ),
    replayMarkers: openrouterMarkers,
    streamed: openrouterStreamed,
    toolCall: openrouterToolCall,
    requestProblems: (body) => chatRequestProblems(body),
    drops: takesAll(
      "OpenRouter's reasoning object takes every thinking setting and every other option",
    ),
  },
  {
    name: 'langchain',
    answer: (model) => overLangChain({ chunks: langchainAnswer }, model),
    failAfterFirstEvent: () =>
      overLangChain({
        chunks: () => langchainAnswer().slice(0, 1),
        failWith: new Error('socket hang up'),
      }),
    stallAfterFirstEvent: () =>
      overLangChain({ chunks: () => langchainAnswer().slice(0, 1), stall: true }),
    cutShort: () => overLangChain({ chunks: langchainCutShort }),
    replayMarkers: langchainMarkers,
    streamed: langchainStreamed,
    toolCall: langchainToolCall,
    drops: { options: { temperature: 0.3 }, warns: 'temperature' },
    requestProblems: langchainRequestProblems,
  },
  {
    name: 'mock',
    answer: (model) => {
      const adapter = mock({ model, script: [mockAnswer('mock')] })
      return overMock(adapter, adapter)
    },
    failAfterFirstEvent: () => {
      const adapter = mock({ script: [mockFailure] })
      return overMock(adapter, adapter)
    },
    stallAfterFirstEvent: () => {
      const adapter = mock({ script: [mockStall] })
      return overMock(adapter, adapter)
    },
    cutShort: () => {
      const adapter = mock({ script: [mockCutShort] })
      return overMock(adapter, adapter)
    },
    replayMarkers: mockMarkers,
    streamed: mockStreamed('mock'),
    toolCall: mockToolCall,
    requestProblems: mockRequestProblems,
    drops: takesAll(MOCK_ONLY),
  },
  {
    name: 'relay client',
    answer: (model) => overRelay(mockAnswer('relay client'), model),
    failAfterFirstEvent: () => overRelay(mockFailure),
    stallAfterFirstEvent: () => overRelay(mockStall),
    cutShort: () => overRelay(mockCutShort),
    replayMarkers: mockMarkers,
    streamed: mockStreamed('relay client'),
    toolCall: mockToolCall,
    requestProblems: mockRequestProblems,
    drops: takesAll(`the relay serves a mock here, and ${MOCK_ONLY}`),
  },
  // Every first call fails with a retryable error before its first event, so each check runs
  // through a retry.
  middlewareEntry('withRetry(mock)', 'retried', (model, then) => {
    const inner = mock({ model, script: [{ fail: { kind: 'overloaded' } }, then] })
    return overMock(withRetry(inner, { initialDelayMs: 1 }), inner)
  }),
  // The primary always fails before its first event; a backup of the same provider and model
  // (say, another region) answers, so the items' tag matches the wrapper's provider and model.
  middlewareEntry('withFallback([mock, mock])', 'fell-back', (model, then) => {
    const primary = mock({ model, script: [{ fail: { kind: 'rate-limit', status: 429 } }] })
    const backup = mock({ model, script: [then] })
    return overMock(withFallback([primary, backup]), backup, [primary])
  }),
  // One request a minute on a clock that jumps: every call after the first waits for the window.
  middlewareEntry('withRateLimit(mock)', 'limited', (model, then) => {
    const inner = mock({ model, script: [then] })
    return overMock(withRateLimit(inner, { requestsPerMinute: 1, ...instantClock() }), inner)
  }),
  // All three stacked as an app would: retry around a fallback whose primary is rate-limited.
  middlewareEntry(
    'withRetry(withFallback([withRateLimit(mock), mock]))',
    'stacked',
    (model, then) => {
      const primary = mock({ model, script: [{ fail: { kind: 'overloaded' } }] })
      const backup = mock({ model, script: [{ fail: { kind: 'server' } }, then] })
      const limited = withRateLimit(primary, { requestsPerMinute: 1, ...instantClock() })
      const stack = withRetry(withFallback([limited, backup]), { initialDelayMs: 1 })
      return overMock(stack, backup, [primary])
    },
  ),
]
