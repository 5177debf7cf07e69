import type OpenAI from 'openai'
import type { CallOptions } from '../../core/adapter.ts'
import type { Conversation } from '../../core/conversation.ts'
import type { Delta, Producer } from '../../kit/guard-stream.ts'
import { END, readEventStream } from '../../kit/read-event-stream.ts'
import type { ReplayTag } from '../../kit/replay.ts'
import { buildRequest, type BuiltRequest, type RequestPlan } from './build-request.ts'
import { createStreamMapper } from './map-stream.ts'
import type { ModelSet } from './model-set.ts'
import type { OpenAIModel } from './models.ts'
import { parseEvent } from './parse-event.ts'
import { openaiTierPricing } from './prices.ts'
import { recoveryFor } from './recover.ts'

/**
 * What one call streams with: the shared client, the model's row, the body's bound, and the models
 * the factory learnt refuse encrypted reasoning.
 */
export type StreamSetup = {
  client: OpenAI
  row: OpenAIModel
  maxEventChars: number | undefined
  refusesEncryptedReasoning: ModelSet
}

/**
 * The producer of one call: it sends the Responses request through the SDK, reads the raw SSE
 * body once, yields each network read's deltas, and returns the finish record at the terminal
 * event (nothing when the stream ended before it).
 *
 * `responses.create({ stream: true })` rather than the `responses.stream()` helper: the helper's
 * accumulator throws on any event type it does not know (new hosted-tool events arrive all the
 * time) and on gaps in `output_index`, and the adapter needs none of its accumulation: items come
 * whole from the stream's own `output_item.done` and terminal events. The SDK builds,
 * authenticates and sends the request and maps HTTP errors; the body is read by
 * `readEventStream`, at a fraction of the cost of the SDK's own iterator (which copies its whole
 * pending buffer after every event).
 *
 * Up to the first delta the producer reads the body itself: a refusal the stream reports before
 * any output (`invalid_encrypted_content` in an `error` event or a failed response) can still be
 * answered by a second request, as the same refusal as an HTTP 400 is (see {@link recoveryFor}).
 * From the first delta on, the guard reads the rest, and any failure is the stream's.
 */
export function streamResponse(
  setup: StreamSetup,
  conversation: Conversation,
  options: CallOptions,
): Producer {
  const { maxEventChars } = setup
  return async function* ({ signal, tag, touch }) {
    const attempt = firstAttempt(setup, tag)
    for (;;) {
      const { request, response } = await send(setup, conversation, options, tag, signal, attempt)
      const { headers } = response
      const mapper = createStreamMapper()
      const map = mapper.map
      const batches = readEventStream<Delta>(response.body, {
        provider: 'openai',
        signal,
        maxEventChars,
        decode(message) {
          const event = parseEvent(message.data, headers)
          return event === undefined || event === END ? event : map(event)
        },
      })
      let head: IteratorResult<Delta[], undefined>
      try {
        head = await untilOutput(batches, touch)
      } catch (error) {
        // Nothing was yielded: a refusal the request can go without is asked once more.
        if (recover(error, request, attempt, setup, tag)) continue
        throw error
      }
      if (!head.done) yield head.value
      // Handed to the guard whole: it reads the batches itself, with no generator step per read.
      yield batches
      const finish = mapper.finish()
      if (finish === undefined) return undefined
      const warnings = [...request.warnings, ...attempt.recovered, ...(finish.warnings ?? [])]
      // Billed at the tier that served the call, which may not be the one asked for.
      const pricing = openaiTierPricing(tag.model, mapper.serviceTier())
      return pricing === undefined ? { ...finish, warnings } : { ...finish, warnings, pricing }
    }
  }
}

/** The requests of one call so far: the plan of the next, and what earlier ones were refused. */
type Attempt = {
  plan: RequestPlan
  /** The warnings of the recoveries made, for the turn. */
  recovered: string[]
}

/** The first request's plan: encrypted reasoning unless the model is known to refuse it. */
function firstAttempt(setup: StreamSetup, tag: ReplayTag): Attempt {
  const encryptedReasoning = !setup.refusesEncryptedReasoning.has(tag.model)
  return { plan: { encryptedReasoning }, recovered: [] }
}

/**
 * Reads `batches` up to the first one that holds a delta, and returns it (or the end of the
 * body). The empty batches before it still prove the upstream alive, which `touch` tells the
 * guard.
 */
async function untilOutput(
  batches: AsyncIterator<Delta[], undefined>,
  touch: () => void,
): Promise<IteratorResult<Delta[], undefined>> {
  for (;;) {
    const next = await batches.next()
    if (next.done === true || next.value.length > 0) return next
    touch()
  }
}

/**
 * Turns the plan of `attempt` to the recovery from `error` (see {@link recoveryFor}), and says
 * whether there is one. A model that refuses encrypted reasoning is remembered, and not asked for
 * it again.
 */
function recover(
  error: unknown,
  request: BuiltRequest,
  attempt: Attempt,
  setup: StreamSetup,
  tag: ReplayTag,
): boolean {
  const recovery = recoveryFor(error, request, attempt.plan, tag.model)
  if (recovery === undefined) return false
  if (recovery.refusesEncryptedReasoning) setup.refusesEncryptedReasoning.add(tag.model)
  attempt.recovered.push(recovery.warning)
  attempt.plan = recovery.plan
  return true
}

/**
 * Sends the request of `attempt`'s plan, and sends it again without what the API refused (with
 * an HTTP error) when a second request can do without it.
 */
async function send(
  setup: StreamSetup,
  conversation: Conversation,
  options: CallOptions,
  tag: ReplayTag,
  signal: AbortSignal,
  attempt: Attempt,
): Promise<{ request: BuiltRequest; response: Response }> {
  for (;;) {
    const request = buildRequest(setup.row, conversation, options, tag, attempt.plan)
    try {
      const response = await setup.client.responses
        .create({ ...request.body, stream: true }, { signal })
        .asResponse()
      return { request, response }
    } catch (error) {
      if (!recover(error, request, attempt, setup, tag)) throw error
    }
  }
}
