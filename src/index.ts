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
  type ErrorKind,
  type ThinkwireErrorOptions,
} from './core/errors.ts'
export { applyEvent, initialTurnState, partialTurn, type TurnState } from './core/reducer.ts'
export { thinkingModeOf } from './core/replay.ts'
