import type { ServerTools } from 'thinkwire/relay'

/**
 * The Worker's server tools (DESIGN §13): a message names those its model may call in
 * `serverTools`, and the conversation's Durable Object runs them, with no browser attached. Add
 * your own here: a name, a description and a JSON Schema for the model, `execute(input, { signal,
 * conversationId })`, and `needsApproval` for a call a person must allow first.
 */
export const serverTools: ServerTools = {
  clock: {
    description: 'The current date and time, as an ISO 8601 string (UTC).',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    execute: () => new Date().toISOString(),
  },
  save_note: {
    description:
      'Saves a short note in this conversation. Each call waits for the user to approve it.',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The note to save.', minLength: 1 } },
      required: ['text'],
      additionalProperties: false,
    },
    needsApproval: true,
    // The conversation keeps the note: the call's input and this result are stored turns of it.
    execute: (input) => {
      const text = noteText(input)
      return `saved: ${text}`
    },
  },
}

/** The `text` of a `save_note` call; a model's call without one is answered with the error. */
function noteText(input: unknown): string {
  const text =
    typeof input === 'object' && input !== null && 'text' in input ? input.text : undefined
  if (typeof text !== 'string' || text.trim() === '') {
    throw new TypeError('save_note needs { "text": string }, a note that is not empty')
  }
  return text
}
