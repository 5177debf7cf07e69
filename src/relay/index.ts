export { createRelay } from './create-relay.ts'
export type { Relay, RelayContext, RelayLimits, RelayLogEntry, RelayOptions } from './options.ts'
export type { RelayAuth, RelayClient } from './auth.ts'
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
export type {
  FieldTable,
  LocalCallOption,
  WireCallOptions,
  WireChatRequest,
  WireError,
  WireEventName,
  WireEvents,
} from '../core/wire.ts'
