export type * from './core/adapter.ts'
export type { Capabilities, ThinkingSupport } from './core/capabilities.ts'
export { costOf, ratesAt, type PriceChange, type PriceRates, type Pricing } from './core/pricing.ts'
export type * from './core/conversation.ts'
export type { Event, EventType, ToolCall } from './core/events.ts'
export {
  ThinkwireError,
  isThinkwireError,
  type ErrorKind,
  type ThinkwireErrorOptions,
} from './core/errors.ts'
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
export type { ChatMessage, ToolCallView } from './core/messages.ts'
export { trimConversation, type TrimOptions } from './core/trim.ts'
export {
  runTools,
  type RunToolsOptions,
  type RunToolsResult,
  type Tool,
  type ToolContext,
} from './core/tools.ts'
export { withRetry, type RetryInfo, type RetryPolicy } from './middleware/retry.ts'
export { withFallback, type FallbackInfo, type FallbackOptions } from './middleware/fallback.ts'
export { withRateLimit, type RateLimitOptions } from './middleware/rate-limit.ts'
export {
  createRegistry,
  type AdapterFactory,
  type ProviderEntry,
  type Registry,
  type RegistryModel,
} from './core/registry.ts'
