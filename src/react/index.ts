export {
  useChat,
  useConversation,
  type UseChatOptions,
  type UseChatResult,
  type UseConversationResult,
} from './use-chat.ts'
export type { ChatInput, ChatStatus, Scheduler } from '../core/chat.ts'
export type { ChatMessage, ToolCallView } from '../core/messages.ts'
