/**
 * What the dialect conformance table asks of each dialect the relay speaks: how to write a call in
 * the dialect's own request shape, and how to read its answer back into one common outcome. The
 * table (`conformance.test.ts`) runs every driver through the same cases, so a dialect is held to
 * the same behaviour as `/v1/chat`, without the table knowing any dialect's shape.
 */

/** A tool the call offers. */
export type DriverTool = { name: string; description: string; parameters: Record<string, unknown> }

/** One turn of the conversation a case sends. */
export type DriverTurn =
  | { role: 'user'; text: string }
  /** An earlier answer, sent back the way a client of the dialect resends what it was given. */
  | { role: 'assistant'; answer: DriverAnswer }
  | { role: 'tool'; results: { id: string; name: string; output: string }[] }

/** The call a case makes. */
export type DriverCall = {
  /** A relay model id, `provider/model`. */
  model: string
  turns: DriverTurn[]
  tools?: DriverTool[] | undefined
  /** Ask for thinking (the dialect's own way), or leave it to the model. */
  thinking?: boolean | undefined
  /** Stream the answer, or ask for it once (only for a driver whose dialect has both). */
  stream: boolean
}

/** An answer, read into the table's terms. */
export type DriverAnswer = {
  text: string
  thinking: string
  toolCalls: { id: string; name: string; input: unknown }[]
  /** As the dialect reported it, or undefined when it reported none. */
  usage: { inputTokens: number; outputTokens: number } | undefined
  /**
   * The answer exactly as a client of the dialect keeps it and sends it back on its next turn
   * (its assistant message, output items or UI message, opaque state included). {@link
   * DialectDriver.request} writes it back verbatim.
   */
  echo: unknown
}

/** What a call got: an answer, or an error in the dialect's own shape. */
export type DriverOutcome =
  | { ok: true; status: number; answer: DriverAnswer }
  | {
      ok: false
      status: number
      /** The error's message, as the dialect carried it. */
      message: string
      /** The error came inside a stream that had already carried an event. */
      afterFirstEvent: boolean
    }

/** One dialect, for the table. */
export type DialectDriver = {
  name: string
  /** The route, such as `/v1/chat/completions`. */
  path: string
  /** The dialect also answers without streaming. */
  nonStreaming: boolean
  /** The request's JSON body and any headers of the dialect's own (the relay token is added). */
  request(call: DriverCall): { body: unknown; headers?: Record<string, string> }
  /**
   * The relay token in the header a client of the dialect sends it in (`authorization: Bearer`
   * for most).
   */
  auth(token: string): Record<string, string>
  /** Reads the whole response, streamed or not, into an outcome; it checks the dialect's framing. */
  read(response: Response, call: DriverCall): Promise<DriverOutcome>
}
