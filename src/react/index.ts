export { useChat, type UseChatOptions, type UseChatResult } from './use-chat.ts'
export type { ChatInput, ChatStatus, Scheduler } from '../core/chat.ts'
export type { ChatMessage, ToolCallView } from '../core/messages.ts'
