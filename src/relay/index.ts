export { createRelay, refuseRequest } from './create-relay.ts'
export {
  checkConversationRequest,
  type ConversationCheckOptions,
  type ConversationRequest,
} from './conversations/check-request.ts'
export type { ConversationOp } from './conversations/routes.ts'
export type { Relay, RelayContext, RelayLimits, RelayLogEntry, RelayOptions } from './options.ts'
export {
  anyAuth,
  type AnyAuthOptions,
  type RelayAuth,
  type RelayClient,
  type RelayRefusal,
} from './auth.ts'
export { jwtAuth, type JwtAuthOptions } from './jwt-auth.ts'
export type { CorsOptions } from './cors.ts'
export type { RelaySpan, SpanExporter, SpanValue, TraceParent, TracingOptions } from './tracing.ts'
export { otlpExporter, otlpTracing, type OtlpExporterOptions } from './otlp-exporter.ts'
// What a host needs to bring a limiter of its own (the Worker keeps each client's `clientLimits`
// in a Durable Object) or to use the in-memory one, and to count a request against it; how a
// window counts stays inside (a `LimitState` is stored, not read).
export {
  clientLimits,
  memoryRateLimiter,
  type ClientLimits,
  type LimitCost,
  type LimitDecision,
  type LimitState,
  type LimitUsage,
  type MemoryLimits,
  type RateLimiter,
  type RateLimits,
} from './rate-limit.ts'
export { countRequest } from './limit-refusal.ts'
export type {
  BudgetLimits,
  BudgetPeriod,
  BudgetRefusal,
  PeriodSpend,
  SpendReport,
} from './budget.ts'
export type {
  FieldTable,
  LocalCallOption,
  ReconnectReason,
  WireCallOptions,
  WireChatRequest,
  WireApproval,
  WireApprovalDecision,
  WireConversationEvents,
  WireConversationRead,
  WireBranch,
  WireBranchRequest,
  WireEditRequest,
  WireRenameRequest,
  WireQueuedMessage,
  WireExportedConversation,
  WireConversationExport,
  ShownTurn,
  ShownConversation,
  WireLoopOptions,
  WirePending,
  WireToolResult,
  WireError,
  WireEventName,
  WireEvents,
} from '../core/wire.ts'
// Durable conversations on any storage with SQLite and an alarm (the Worker's Durable Object
// only connects one).
export {
  CLIENT_HEADER,
  ConversationHost,
  type ConversationHostOptions,
  type ConversationHostSettings,
  type HostStats,
  type HostStorage,
  type IndexCall,
  type IndexPeer,
} from './conversations/host.ts'
export type { ConversationListing } from './conversations/listing-index.ts'
export type { ServerTool, ServerToolContext, ServerTools } from './conversations/server-tools.ts'
export type { SqlHandle } from './conversations/conversation-store.ts'
