import { assertNever } from '../core/assert-never.ts'
import type { ToolCall } from '../core/events.ts'
import type { StreamDelta } from './dialects.ts'

/**
 * Writes a delta with the writer of its kind: `piece` for a text or thinking delta (by its type),
 * `toolCall` for a tool call. The switch every dialect's encoder makes over a delta. (A module of
 * its own: the encoders import it, and `dialects.ts` imports them.)
 */
export function writeDelta(
  event: StreamDelta,
  piece: (type: 'text' | 'thinking', text: string) => string,
  toolCall: (call: ToolCall) => string,
): string {
  switch (event.type) {
    case 'text':
    case 'thinking':
      return piece(event.type, event.text)
    case 'tool-call':
      return toolCall(event.call)
    default:
      return assertNever(event)
  }
}
