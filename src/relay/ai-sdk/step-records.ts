import type { Usage } from '../../core/conversation.ts'
import { isRecord, own } from '../validate-json.ts'
import type { UiStep } from './encode.ts'

/**
 * The records of an assistant message's steps, from its `metadata.thinkwire.steps`: each rebuilt
 * from its known fields, null where an entry is not one. Whether a record holds a turn the relay
 * sealed is decided later, step by step.
 */
export function stepRecords(metadata: unknown): (UiStep | null)[] {
  const thinkwire = isRecord(metadata) ? own(metadata, 'thinkwire') : undefined
  const steps = isRecord(thinkwire) ? own(thinkwire, 'steps') : undefined
  if (!Array.isArray(steps)) return []
  return steps.map((entry: unknown) => {
    if (!isRecord(entry)) return null
    const model = own(entry, 'model')
    const usage = usageOf(own(entry, 'usage'))
    const sealed = own(entry, 'sealed')
    if (typeof model !== 'string' || usage === undefined) return null
    const step: UiStep = { model, usage }
    if (typeof sealed === 'string') step.sealed = sealed
    return step
  })
}

/** The counts of a step's usage that are numbers (it goes back to the client, which shows it). */
function usageOf(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined
  const count = (key: keyof Usage) => {
    const n = own(value, key)
    return typeof n === 'number' && Number.isFinite(n) ? n : undefined
  }
  const inputTokens = count('inputTokens')
  const outputTokens = count('outputTokens')
  if (inputTokens === undefined || outputTokens === undefined) return undefined
  const usage: Usage = { inputTokens, outputTokens }
  for (const key of OPTIONAL_USAGE) {
    const n = count(key)
    if (n !== undefined) usage[key] = n
  }
  return usage
}

const OPTIONAL_USAGE = [
  'reasoningTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'cost',
] as const satisfies readonly (keyof Usage)[]
