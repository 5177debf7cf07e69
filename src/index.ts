export type {
  Adapter,
  CallOptions,
  JSONSchema,
  ResponseFormat,
  Thinking,
  ToolChoice,
  ToolSpec,
} from './core/adapter.ts'
export type {
  AssistantTurn,
  Conversation,
  OpaqueItems,
  StopReason,
  ToolResult,
  ToolTurn,
  Turn,
  Usage,
  UserPart,
  UserTurn,
} from './core/conversation.ts'
export type { Event, EventType, ToolCall } from './core/events.ts'
export {
  ThinkwireError,
  isThinkwireError,
  isRetryableKind,
  kindFromStatus,
  retryAfterMsFromHeaders,
  type ErrorKind,
  type ThinkwireErrorOptions,
} from './core/errors.ts'
export { applyEvent, initialTurnState, partialTurn, type TurnState } from './core/reducer.ts'
export {
  encodeTurns,
  matchesTag,
  thinkingModeOf,
  type ReplayTag,
  type TurnEncoder,
} from './core/replay.ts'
export { complete, type CompleteOptions } from './core/complete.ts'
export { completeJson, type CompleteJsonOptions, type JsonResult } from './core/complete-json.ts'
export type { StandardSchemaV1, StandardIssue, StandardResult } from './core/standard-schema.ts'
export {
  Chat,
  type ChatInput,
  type ChatOptions,
  type ChatSnapshot,
  type ChatStatus,
  type Scheduler,
} from './core/chat.ts'
export { toMessages, type ChatMessage, type ToolCallView } from './core/messages.ts'
export { trimConversation, type TrimOptions } from './core/trim.ts'
export {
  executeToolCalls,
  runTools,
  type RunToolsOptions,
  type RunToolsResult,
  type Tool,
  type ToolContext,
} from './core/tools.ts'
export { guardStream, sleep, type GuardOptions, type StreamContext } from './core/guard-stream.ts'
export { models, findModel, type ModelInfo, type ThinkingSupport } from './models.ts'
export { withRetry, type RetryInfo, type RetryPolicy } from './middleware/retry.ts'
export { withFallback, type FallbackInfo, type FallbackOptions } from './middleware/fallback.ts'
export { withRateLimit, type RateLimitOptions } from './middleware/rate-limit.ts'
export {
  createRegistry,
  isRegistry,
  type AdapterFactory,
  type ProviderEntry,
  type Registry,
  type RegistryModel,
} from './core/registry.ts'
