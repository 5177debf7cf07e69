export { useChat, type UseChatOptions, type UseChatResult } from './use-chat.ts'
export { useConversation, type UseConversationResult } from './use-conversation.ts'
export type { ChatInput, ChatStatus, Scheduler } from '../core/chat.ts'
export type { ChatMessage, ToolCallView } from '../core/messages.ts'
