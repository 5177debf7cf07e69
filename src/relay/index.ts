export { createRelay } from './create-relay.ts'
export type { Relay, RelayContext, RelayLimits, RelayLogEntry, RelayOptions } from './options.ts'
export type { RelayAuth, RelayClient, RelayRefusal } from './auth.ts'
export { jwtAuth, type JwtAuthOptions } from './jwt-auth.ts'
export type { CorsOptions } from './cors.ts'
export {
  callSpan,
  parseTraceparent,
  type RelaySpan,
  type SpanExporter,
  type SpanValue,
  type TraceParent,
  type TracingOptions,
} from './tracing.ts'
export { otlpExporter, otlpHeaders, type OtlpExporterOptions } from './otlp-exporter.ts'
export {
  admit,
  admitCall,
  memoryRateLimiter,
  settle,
  settleCall,
  type LimitCost,
  type LimitDecision,
  type LimitUsage,
  type MemoryLimits,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimits,
  type WindowState,
} from './rate-limit.ts'
export {
  emptyBudget,
  spendReport,
  type BudgetLimits,
  type BudgetPeriod,
  type BudgetRefusal,
  type BudgetState,
  type PeriodSpend,
  type SpendReport,
} from './budget.ts'
export type {
  FieldTable,
  LocalCallOption,
  WireCallOptions,
  WireChatRequest,
  WireError,
  WireEventName,
  WireEvents,
} from '../core/wire.ts'
