/**
 * The AI SDK's own chat client outside React: `AbstractChat` (what `useChat` runs) on a plain
 * state, with a `DefaultChatTransport` pointed at a relay, so tests drive the relay as `useChat`
 * does: its requests, its parsing and validation of every part, its tool loop.
 */
import {
  AbstractChat,
  DefaultChatTransport,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  type UIMessage,
} from 'ai'

/** A chat state that keeps its messages in an array, as React's state would. */
class PlainState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready'
  error: Error | undefined = undefined
  messages: UIMessage[] = []
  pushMessage = (message: UIMessage) => void this.messages.push(message)
  popMessage = () => void this.messages.pop()
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages[index] = message
  }
  snapshot = <T>(thing: T): T => structuredClone(thing)
}

/** `useChat`'s client without React. */
export class TestChat extends AbstractChat<UIMessage> {
  constructor(init: Omit<ChatInit<UIMessage>, 'messages'>) {
    super({ ...init, state: new PlainState() })
  }
}

/** Options of {@link relayTransport}. */
export type RelayTransportOptions = {
  /** The relay's origin, such as `http://relay.test`. */
  base: string
  /** The app's `body`: the model and any call options. */
  body: Record<string, unknown>
  token?: string | undefined
  fetch?: typeof globalThis.fetch | undefined
}

/** A `DefaultChatTransport` on the relay's `/v1/ai-sdk/chat`, as an app would make it. */
export function relayTransport(options: RelayTransportOptions): DefaultChatTransport<UIMessage> {
  const { base, body, token, fetch } = options
  return new DefaultChatTransport<UIMessage>({
    api: `${base}/v1/ai-sdk/chat`,
    body,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    ...(fetch === undefined ? {} : { fetch }),
  })
}

/** The text of a message's parts of one type, joined. */
export function textOf(message: UIMessage | undefined, type: 'text' | 'reasoning'): string {
  let text = ''
  for (const part of message?.parts ?? []) if (part.type === type) text += part.text
  return text
}
