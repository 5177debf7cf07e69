import type { JsonRecord } from '../../kit/json.ts'

/** A reasoning field of an assistant message on an OpenAI-compatible server. */
export type ReasoningField = 'reasoning_content' | 'reasoning' | 'reasoning_details'

/** Our thinking levels, as a server spells them. A level left out is not taken. */
export type EffortLevels = {
  low?: string | undefined
  medium?: string | undefined
  high?: string | undefined
  max?: string | undefined
}

/** How a server takes a thinking setting. */
export type ThinkingControl =
  /** It takes none: a requested setting is dropped with a warning. */
  | { type: 'none' }
  /**
   * `reasoning_effort: <level>`. `on` is merged into the request with any level, `off` in place
   * of a level when thinking is `'off'` (without `off`, thinking cannot be turned off).
   */
  | {
      type: 'reasoning-effort'
      levels: EffortLevels
      on?: JsonRecord | undefined
      off?: JsonRecord | undefined
    }
  /** OpenRouter's `reasoning: { effort } | { max_tokens } | { enabled: false }`. */
  | { type: 'openrouter-reasoning' }

/** How a server streams reasoning, and what it needs back on later turns. */
export type CompatibleReasoning = {
  /**
   * Reasoning written inline in the content between `<think>` and `</think>`:
   * `'tags'` takes a block that opens the answer, `'starts-inside'` also takes a stream that starts
   * inside the block (the template opened it, so only `</think>` shows), `'off'` leaves content
   * alone. Reasoning in `reasoning_content`, `reasoning` or `reasoning_details` is always read.
   * @defaultValue `'tags'`
   */
  thinkTags?: 'tags' | 'starts-inside' | 'off' | undefined
  /** Reasoning fields kept on the turn's assistant message and sent back on later turns. */
  sendBack?: readonly ReasoningField[] | undefined
  /** Send them back on every assistant turn, or only on turns with tool calls. @defaultValue `'always'` */
  sendBackOn?: 'always' | 'tool-calls' | undefined
  /**
   * The server rejects such a turn without the fields: turns from elsewhere get them empty.
   * @defaultValue false
   */
  required?: boolean | undefined
  /** How it takes a thinking setting. @defaultValue `{ type: 'none' }` */
  control?: ThinkingControl | undefined
}
