import type Anthropic from '@anthropic-ai/sdk'
import { APIError } from '@anthropic-ai/sdk'
import type { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream'
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages'
import type { CallOptions } from '../../core/adapter.ts'
import type { Conversation } from '../../core/conversation.ts'
import type { Event } from '../../core/events.ts'
import type { StreamContext } from '../../core/guard-stream.ts'
import { thinkingModeOf, type ReplayTag } from '../../core/replay.ts'
import type { ModelInfo } from '../../models.ts'
import { buildRequest, type BuiltRequest } from './build-request.ts'
import { finishTurn } from './finish-turn.ts'
import { createStreamMapper } from './map-stream.ts'

type Step = IteratorResult<Event, undefined>
const END: Step = { done: true, value: undefined }

/**
 * The events of one call, for `guardStream`: each SDK event is pulled and mapped synchronously,
 * then the final message becomes the `done` turn. This is a plain iterator rather than an async
 * generator on purpose: a generator between the SDK and the guard costs about a fifth of the SDK's
 * own time per event. Nothing runs until the first `next()`, so every failure reaches the guard.
 */
export function anthropicEvents(
  client: Anthropic,
  info: ModelInfo,
  known: boolean,
  conversation: Conversation,
  options: CallOptions,
  { signal, touch }: StreamContext,
): AsyncIterable<Event> {
  const tag: ReplayTag = {
    provider: 'anthropic',
    model: info.id,
    thinkingMode: thinkingModeOf(options.thinking),
  }
  const mapper = createStreamMapper()
  let request: BuiltRequest
  let stream: MessageStream | undefined
  let events: AsyncIterator<RawMessageStreamEvent>
  let started = false
  let finished = false

  function open(stripThinking: boolean): void {
    request = buildRequest(info, known, conversation, options, tag, stripThinking)
    stream = client.messages.stream(request.body, { signal })
    events = stream[Symbol.asyncIterator]()
  }

  async function start(): Promise<IteratorResult<RawMessageStreamEvent>> {
    open(false)
    try {
      return await events.next()
    } catch (error) {
      if (!request.replayedThinking || !isStaleThinking(error)) throw error
      // Signatures are bound to the system prompt, the tools and the history before them; once
      // one of those changed the API refuses the old blocks. Nothing was yielded yet: ask once
      // more without them.
      open(true)
      request.warnings.push(
        'earlier thinking dropped: it was bound to a different system prompt, tools or history',
      )
      return events.next()
    }
  }

  const onStep = (step: IteratorResult<RawMessageStreamEvent>): Step | Promise<Step> => {
    if (step.done === true) return finish()
    const event = mapper.map(step.value)
    if (event !== undefined) return { done: false, value: event }
    touch()
    return events.next().then(onStep)
  }

  async function finish(): Promise<Step> {
    finished = true
    if (stream === undefined) throw new Error('anthropic: the stream ended before it was opened')
    const message = await stream.finalMessage()
    return {
      done: false,
      value: { type: 'done', turn: finishTurn(message, mapper.totals, tag, request.warnings) },
    }
  }

  const iterator: AsyncIterator<Event, undefined> = {
    next() {
      if (finished) return Promise.resolve(END)
      if (!started) {
        started = true
        return start().then(onStep)
      }
      return events.next().then(onStep)
    },
    return() {
      // Leaving early: stop the upstream request (after `done` there is nothing left to stop).
      if (!finished) stream?.abort()
      finished = true
      return Promise.resolve(END)
    },
  }
  return { [Symbol.asyncIterator]: () => iterator }
}

function isStaleThinking(error: unknown): boolean {
  return (
    error instanceof APIError &&
    error.status === 400 &&
    /bound to a different conversation|invalid `?signature`?/i.test(error.message)
  )
}
