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
 */
export function streamResponse(
  setup: StreamSetup,
  conversation: Conversation,
  options: CallOptions,
): Producer {
  const { maxEventChars } = setup
  return async function* ({ signal, tag }) {
    const { request, response } = await send(setup, conversation, options, tag, signal)
    const { headers } = response
    const mapper = createStreamMapper()
    const map = mapper.map
    // Handed to the guard whole: it reads the batches itself, with no generator step per read.
    yield readEventStream<Delta>(response.body, {
      provider: 'openai',
      signal,
      maxEventChars,
      decode(message) {
        const event = parseEvent(message.data, headers)
        return event === undefined || event === END ? event : map(event)
      },
    })
    const finish = mapper.finish()
    if (finish === undefined) return undefined
    const warnings = [...request.warnings, ...(finish.warnings ?? [])]
    // Billed at the tier that served the call, which may not be the one asked for.
    const pricing = openaiTierPricing(tag.model, mapper.serviceTier())
    return pricing === undefined ? { ...finish, warnings } : { ...finish, warnings, pricing }
  }
}

/**
 * Sends the request, and sends it again without what the API refused when a second request can
 * do without it (see {@link recoveryFor}), saying so in the request's warnings. A model that
 * refuses encrypted reasoning is remembered, and not asked for it again.
 */
async function send(
  setup: StreamSetup,
  conversation: Conversation,
  options: CallOptions,
  tag: ReplayTag,
  signal: AbortSignal,
): Promise<{ request: BuiltRequest; response: Response }> {
  const { client, row, refusesEncryptedReasoning } = setup
  let plan: RequestPlan = { encryptedReasoning: !refusesEncryptedReasoning.has(tag.model) }
  const recovered: string[] = []
  for (;;) {
    const request = buildRequest(row, conversation, options, tag, plan)
    try {
      const response = await client.responses
        .create({ ...request.body, stream: true }, { signal })
        .asResponse()
      request.warnings.push(...recovered)
      return { request, response }
    } catch (error) {
      const recovery = recoveryFor(error, request, plan, tag.model)
      if (recovery === undefined) throw error
      if (recovery.refusesEncryptedReasoning) refusesEncryptedReasoning.add(tag.model)
      recovered.push(recovery.warning)
      plan = recovery.plan
    }
  }
}
