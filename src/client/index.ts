export { relay, type RelayHeaders, type RelayOptions } from './relay.ts'
export {
  relayConversation,
  type RelayConversation,
  type ConversationSnapshot,
  type ConversationSocket,
  type RelayConversationOptions,
  type RelayConversationUpdate,
} from './conversation.ts'
export type { ChatStore } from '../core/chat-store.ts'
export { traceparent, type TraceparentOptions } from './trace.ts'
export type { ShownAssistantTurn } from '../core/wire.ts'
