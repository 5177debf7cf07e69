/**
 * Dollar budgets for answers in durable conversations, in workerd: each answer reserves its priced
 * estimate through the rate limiter's Durable Object before it runs and is settled with its real
 * cost when it ends (one that ended early, whose usage is not known, at what was reserved), as on
 * `POST /v1/chat`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AssistantTurn } from '../../src/core/conversation.ts'
import type { SpendReport } from '../../src/relay/budget.ts'
import { readSse, readUntil } from '../relay/sse-reader.ts'
import { startTestWorker, type TestWorker } from './start-worker.ts'

const ENTRY = 'test/worker/fixtures/conversation-budget-worker.ts'
/** One client per test, so each starts with nothing spent. */
const CLIENTS = {
  usage: 'token-usage-0123456789',
  spent: 'token-spent-0123456789',
  ended: 'token-ended-0123456789',
  failed: 'token-failed-0123456789',
}

let worker: TestWorker

beforeAll(async () => {
  worker = await startTestWorker(
    {
      RELAY_TOKENS: Object.values(CLIENTS).join(','),
      MOCK_MODELS: 'off',
      BUDGET_USD_PER_DAY: '0.25',
      BUDGET_USD_PER_MONTH: '10',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
    },
    ENTRY,
  )
})

afterAll(async () => {
  await worker?.dispose()
})

function call(token: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  return worker.fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    body: body === undefined ? null : JSON.stringify(body),
  })
}

async function create(token: string): Promise<string> {
  const response = await call(token, '/v1/conversations', {})
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

const ask = (model: string, maxTokens: number) => ({
  model,
  turn: { role: 'user', content: 'What does it cost?' },
  maxTokens,
})

async function spent(token: string): Promise<number> {
  const response = await call(token, '/v1/usage')
  expect(response.status).toBe(200)
  return ((await response.json()) as SpendReport).day.spentUsd
}

/** The day's spend once it has become `ready` (settling follows the answer's end). */
async function spentOnce(
  token: string,
  ready: (usd: number) => boolean,
  withinMs = 10_000,
): Promise<number> {
  const deadline = Date.now() + withinMs
  for (;;) {
    const usd = await spent(token)
    if (ready(usd) || Date.now() > deadline) return usd
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe('dollar budgets of durable conversations in workerd', () => {
  it('counts a conversation answer in GET /v1/usage at its real cost', async () => {
    const token = CLIENTS.usage
    const id = await create(token)
    const read = await readSse(
      await call(token, `/v1/conversations/${id}/messages`, ask('test/priced', 100)),
    )
    const done = JSON.parse(read.events.at(-1)!.data) as { turn: AssistantTurn }
    expect(read.events.at(-1)!.event).toBe('done')
    expect(done.turn.usage.cost).toBe(0.15)
    // The reservation ($0.001 a token for the input and the 100 output tokens) became $0.15.
    expect(await spentOnce(token, (usd) => usd === 0.15)).toBe(0.15)
    const report = (await (await call(token, '/v1/usage')).json()) as SpendReport
    expect(report.day).toMatchObject({ spentUsd: 0.15, limitUsd: 0.25, remainingUsd: 0.1 })
    expect(report.month).toMatchObject({ spentUsd: 0.15, limitUsd: 10 })
  })

  it('refuses with the 429 that names the daily budget once conversation answers have spent it', async () => {
    const token = CLIENTS.spent
    const id = await create(token)
    await readSse(await call(token, `/v1/conversations/${id}/messages`, ask('test/priced', 100)))
    expect(await spentOnce(token, (usd) => usd === 0.15)).toBe(0.15)

    // $0.15 spent; the next answer may cost its input and 100 output tokens, over $0.10.
    const refused = await call(token, `/v1/conversations/${id}/messages`, ask('test/priced', 100))
    expect(refused.status).toBe(429)
    const { error } = (await refused.json()) as { error: { kind: string; message: string } }
    expect(error.kind).toBe('rate-limit')
    expect(error.message).toMatch(
      /^the daily budget of \$0\.25 for this client is spent; it resets at \d{4}-\d\d-\d\dT00:00:00\.000Z$/,
    )
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(24 * 60 * 60)
    const regenerate = await call(token, `/v1/conversations/${id}/regenerate`, {
      model: 'test/priced',
      maxTokens: 100,
    })
    expect(regenerate.status).toBe(429)
    // Nothing refused reached the conversation, and nothing more was spent.
    const shown = (await (await call(token, `/v1/conversations/${id}`)).json()) as {
      conversation: { turns: unknown[] }
    }
    expect(shown.conversation.turns).toHaveLength(2)
    expect(await spent(token)).toBe(0.15)
  })

  it('settles a stopped answer at what was reserved: its usage is not known', async () => {
    const token = CLIENTS.ended
    const id = await create(token)
    // 1,000 output tokens reserved: about $1, admitted as the day's first call.
    const running = await call(
      token,
      `/v1/conversations/${id}/messages`,
      ask('test/priced-slow', 1000),
    )
    expect(running.status).toBe(200)
    await readUntil(running, (read) => read.events.length >= 5)
    const reserved = await spent(token)
    expect(reserved).toBeGreaterThan(1)
    expect((await call(token, `/v1/conversations/${id}/stop`, {})).status).toBe(204)
    // Settled with what was streamed (a few tokens), it would drop under $0.05 within moments.
    expect(await spentOnce(token, (usd) => usd < reserved, 2000)).toBe(reserved)
    // The day's budget is spent for it: the next answer is refused.
    const next = await call(token, `/v1/conversations/${id}/messages`, ask('test/priced', 10))
    expect(next.status).toBe(429)
  })

  it('settles an answer that failed part-way at what was reserved', async () => {
    const token = CLIENTS.failed
    const id = await create(token)
    // Its input and 100 output tokens reserved (over $0.10); it streams 4 tokens, then fails.
    const failed = await readSse(
      await call(token, `/v1/conversations/${id}/messages`, ask('test/priced-break', 100)),
    )
    expect(failed.events.at(-1)!.event).toBe('error')
    // Settled with its input and what it streamed, it would drop under $0.05 within moments.
    expect(await spentOnce(token, (usd) => usd < 0.1, 2000)).toBeGreaterThan(0.1)
  })
})
