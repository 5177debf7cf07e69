import { applyEvent, initialTurnState, type TurnState } from '../../core/reducer.ts'
import { decodeFrame } from './event-log.ts'

/**
 * The text and thinking of an answer, folded (with the reducer every stream uses) from its
 * logged frames, so the object that runs it need not hold them: a stopped answer is rebuilt from
 * its stored batches plus the frames still held. Tool calls are left out, as a stopped answer
 * keeps none (calls without results could not be sent again), and so is every other event.
 */
export function foldFrames(frames: Iterable<string>, state: TurnState = initialTurnState) {
  let folded = state
  for (const frame of frames) {
    const event = decodeFrame(frame)
    if (event === null || (event.name !== 'text' && event.name !== 'thinking')) continue
    const { data } = event
    if (typeof data !== 'object' || data === null || !('text' in data)) continue
    if (typeof data.text !== 'string') continue
    folded = applyEvent(folded, { type: event.name, text: data.text })
  }
  return folded
}
