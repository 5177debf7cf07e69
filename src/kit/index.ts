export { defineAdapter, type AdapterDefinition, type ModelDefinition } from './define-adapter.ts'
export {
  guardStream,
  type Delta,
  type DeltaSource,
  type Finish,
  type GuardSetup,
  type Producer,
  type StreamContext,
} from './guard-stream.ts'
export {
  END,
  readEventStream,
  type EventSourceMessage,
  type ReadEventStreamOptions,
} from './read-event-stream.ts'
export { encodeTurns, type ReplayTag, type TurnEncoder } from './replay.ts'
export { mergeProviderOptions } from './provider-options.ts'
export {
  httpError,
  isContextLengthMessage,
  kindFromStatus,
  retryAfterMsFromHeaders,
  type HttpFailure,
} from './http-error.ts'
export { buildClient, sdkTransportError, type SdkTransportErrors } from './sdk-error.ts'
export { nodeFetchTimeout } from './node-fetch-timeout.ts'
export { abortedError, toThinkwireError } from '../core/errors.ts'
export { keepStopSequences } from './stop-sequences.ts'
export { withJsonInstruction } from './json-instruction.ts'
export { levelForBudget, nearestLevel, type BudgetThresholds } from './effort.ts'
export { modelTable, type ModelTable } from './model-table.ts'
export { parsePartialJson, type PartialJson } from './partial-json.ts'
export { isRecord, type JsonRecord } from './json.ts'
export { isSafeKey, safeRecord } from './safe-json.ts'
export { sleep } from '../core/sleep.ts'
export type { Capabilities, ThinkingSupport } from '../core/capabilities.ts'
export type { Pricing } from '../core/pricing.ts'
