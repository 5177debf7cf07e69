export {
  guardStream,
  type Delta,
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
export {
  encodeTurns,
  matchesTag,
  sendableTurns,
  thinkingModeOf,
  type ReplayTag,
  type TurnEncoder,
} from './replay.ts'
export { mergeProviderOptions } from './provider-options.ts'
export {
  httpError,
  isContextLengthMessage,
  kindFromStatus,
  retryAfterMsFromHeaders,
  type HttpFailure,
} from './http-error.ts'
export { buildClient, sdkTransportError, type SdkTransportErrors } from './sdk-error.ts'
export { keepStopSequences } from './stop-sequences.ts'
export { abortedError, isRetryableKind, toThinkwireError } from '../core/errors.ts'
export {
  DEFAULT_BUDGET_THRESHOLDS,
  EFFORT_ORDER,
  levelForBudget,
  nearestLevel,
  type BudgetThresholds,
} from './effort.ts'
export { modelTable, type ModelTable } from './model-table.ts'
export { isRecord, type JsonRecord } from './json.ts'
export { isSafeKey, safeRecord } from './safe-json.ts'
export { applyEvent, initialTurnState, partialTurn, type TurnState } from '../core/reducer.ts'
export { sleep } from '../core/sleep.ts'
export type { Capabilities, ThinkingSupport } from '../core/capabilities.ts'
export { costOf, type Pricing } from '../core/pricing.ts'
