export { createRelay } from './create-relay.ts'
export type { Relay, RelayContext, RelayLimits, RelayLogEntry, RelayOptions } from './options.ts'
export type { RelayAuth } from './auth.ts'
export type { CorsOptions } from './cors.ts'
export {
  admit,
  memoryRateLimiter,
  settle,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimits,
  type WindowState,
} from './rate-limit.ts'
export { canonicalJson, createSealer, type Sealer } from './seal.ts'
export { createSseEncoder, type SseEncoder } from './sse.ts'
export { validateChatRequest, type ChatRequest } from './validate-request.ts'
export type { FieldError, Validation } from './validate-json.ts'
