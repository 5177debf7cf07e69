/**
 * The relay's misuse classes at a size too large for `npm test`, for `npm run stress`: the cost of
 * matching tool results to calls in a 1 MB body, admission of many parallel calls against one
 * token window, and refusals counted against the request rate.
 */
import { mock } from '../../src/providers/mock/index.ts'
import { createRelay, memoryRateLimiter } from '../../src/relay/index.ts'
import { validateChatRequest, type RequestLimits } from '../../src/relay/validate-request.ts'

const user = { role: 'user', content: 'Hi' }

/** Tool calls and their results, `n` of each: in one turn pair (`wide`) or one pair per call (`long`). */
export function toolBodies(n: number): { wide: unknown; long: unknown; bytes: number } {
  const call = (i: number) => ({ id: `call_${i}`, name: 'lookup', input: {} })
  const result = (i: number) => ({ callId: `call_${i}`, name: 'lookup', output: 1 })
  const assistant = (calls: unknown[]) => ({ role: 'assistant', text: '', toolCalls: calls })
  const wide = {
    model: 'mock/echo',
    conversation: {
      turns: [
        user,
        assistant(Array.from({ length: n }, (_, i) => call(i))),
        { role: 'tool', results: Array.from({ length: n }, (_, i) => result(i)) },
      ],
    },
  }
  const long = {
    model: 'mock/echo',
    conversation: {
      turns: [
        user,
        ...Array.from({ length: n }, (_, i) => [
          assistant([call(i)]),
          { role: 'tool', results: [result(i)] },
        ]).flat(),
      ],
    },
  }
  return { wide, long, bytes: JSON.stringify(wide).length }
}

/** How much longer validating `wide` takes than `long` (fastest of several runs each). */
export function validationRatio(n: number): { ratio: number; bytes: number } {
  const { wide, long, bytes } = toolBodies(n)
  const limits: RequestLimits = {
    turns: 2 * n + 1,
    tools: 128,
    maxTokens: 1_000_000,
    depth: 64,
    toolCalls: n,
    toolResults: n,
  }
  const fastest = (body: unknown) => {
    let best = Infinity
    for (let i = 0; i < 7; i++) {
      const started = performance.now()
      const checked = validateChatRequest(body, limits)
      best = Math.min(best, performance.now() - started)
      if (!checked.ok) throw new Error(checked.error.message)
    }
    return best
  }
  fastest(long)
  return { ratio: fastest(wide) / fastest(long), bytes }
}

/** `calls` parallel calls reserving `maxTokens` each against a `window`-token minute: how many got in. */
export async function parallelAdmission(
  calls: number,
  maxTokens: number,
  window: number,
): Promise<{ admitted: number; refused: number }> {
  const relay = createRelay({
    providers: { mock: { create: () => mock({ model: 'echo' }), models: ['echo'] } },
    rateLimiter: memoryRateLimiter({ tokensPerMinute: window }),
  })
  const answers = await Promise.all(
    Array.from({ length: calls }, () =>
      relay.fetch(
        new Request('http://relay.test/v1/chat', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'mock/echo', conversation: { turns: [user] }, maxTokens }),
        }),
      ),
    ),
  )
  await Promise.all(answers.map((answer) => answer.text()))
  return {
    admitted: answers.filter((answer) => answer.status === 200).length,
    refused: answers.filter((answer) => answer.status === 429).length,
  }
}

/** `sent` bad bodies against a `perMinute` request rate: how many got a 400 before the 429s. */
export async function refusalsCounted(sent: number, perMinute: number): Promise<number> {
  const relay = createRelay({
    providers: { mock: [mock()] },
    rateLimiter: memoryRateLimiter({ requestsPerMinute: perMinute }),
  })
  let refused = 0
  for (let i = 0; i < sent; i++) {
    const response = await relay.fetch(
      new Request('http://relay.test/v1/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"model": 42}',
      }),
    )
    if (response.status === 400) refused++
    await response.text()
  }
  return refused
}
