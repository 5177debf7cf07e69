import { describe, expect, it } from 'vitest'
import { validateChatRequest, type RequestLimits } from '../../src/relay/validate-request.ts'

const limits: RequestLimits = {
  turns: 10,
  tools: 4,
  maxTokens: 10_000,
  depth: 8,
  toolCalls: 3,
  toolResults: 3,
}
const user = { role: 'user', content: 'Hi' }
const base = { model: 'mock/echo', conversation: { turns: [user] } }

function problem(body: unknown): string {
  const result = validateChatRequest(body, limits)
  if (result.ok) throw new Error('expected the body to be refused')
  expect(result.error.message.startsWith(result.error.field)).toBe(true)
  return result.error.message
}

function accepted(body: unknown) {
  const result = validateChatRequest(body, limits)
  if (!result.ok) throw new Error(result.error.message)
  return result.value
}

const assistant = {
  role: 'assistant',
  text: 'Let me look.',
  toolCalls: [{ id: 'c1', name: 'lookup', input: { q: 'x' } }],
  usage: { inputTokens: 3, outputTokens: 4 },
  stopReason: 'tool-calls',
  items: { provider: 'mock', model: 'echo', thinkingMode: 'default', data: [{ any: ['thing'] }] },
}

describe('validateChatRequest', () => {
  it('accepts a full request and rebuilds it from known fields', () => {
    const value = accepted({
      model: 'mock/echo',
      conversation: {
        system: 'Be brief.',
        turns: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Hi' },
              { type: 'image', mediaType: 'image/png', data: 'aGk=' },
            ],
            id: 'app-id',
          },
          assistant,
          {
            role: 'tool',
            results: [{ callId: 'c1', name: 'lookup', output: { found: true }, isError: false }],
          },
        ],
      },
      thinking: { budgetTokens: 2000 },
      tools: [
        { name: 'lookup', description: 'Looks up', parameters: { type: 'object', properties: {} } },
      ],
      toolChoice: { name: 'lookup' },
      maxTokens: 500,
      temperature: 0.5,
      responseFormat: { type: 'json', name: 'answer', schema: { type: 'object' } },
    })
    expect(value.model).toBe('mock/echo')
    expect(value.conversation.system).toBe('Be brief.')
    expect(value.conversation.turns[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Hi' },
        { type: 'image', mediaType: 'image/png', data: 'aGk=' },
      ],
    })
    expect(value.options).toEqual({
      thinking: { budgetTokens: 2000 },
      tools: [
        { name: 'lookup', description: 'Looks up', parameters: { type: 'object', properties: {} } },
      ],
      toolChoice: { name: 'lookup' },
      maxTokens: 500,
      temperature: 0.5,
      responseFormat: { type: 'json', name: 'answer', schema: { type: 'object' } },
    })
  })

  it('passes opaque items data through as the very same array', () => {
    const body = JSON.parse(
      JSON.stringify({
        ...base,
        conversation: {
          turns: [
            user,
            assistant,
            { role: 'tool', results: [{ callId: 'c1', name: 'lookup', output: 1 }] },
          ],
        },
      }),
    ) as {
      conversation: { turns: { items?: { data: unknown[] } }[] }
    }
    const value = accepted(body)
    const turn = value.conversation.turns[1]
    expect(turn?.role === 'assistant' && turn.items?.data).toBe(
      body.conversation.turns[1]!.items!.data,
    )
  })

  it('fills usage and stopReason of a hand-written assistant turn', () => {
    const value = accepted({
      ...base,
      conversation: { turns: [user, { role: 'assistant', text: 'Hello' }, user] },
    })
    expect(value.conversation.turns[1]).toEqual({
      role: 'assistant',
      text: 'Hello',
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'stop',
    })
  })

  it('drops an empty system prompt', () => {
    expect(accepted({ ...base, conversation: { system: '', turns: [user] } }).conversation).toEqual(
      { turns: [user] },
    )
  })

  const refusals: [string, unknown, string][] = [
    ['a non-object body', [], 'body must be a JSON object, got an array'],
    [
      'a missing model',
      { conversation: base.conversation },
      'model must be a string, got undefined',
    ],
    ['an empty model', { ...base, model: '' }, 'model must not be empty'],
    [
      'an unknown field',
      { ...base, max_tokens: 5 },
      'max_tokens is not a known field (known: model, conversation, thinking, tools, toolChoice, maxTokens, temperature, stop, responseFormat, cache)',
    ],
    [
      'providerOptions',
      { ...base, providerOptions: {} },
      'providerOptions is not accepted from clients',
    ],
    [
      'a conversation that is not an object',
      { ...base, conversation: 'hi' },
      "conversation must be an object, got 'hi'",
    ],
    [
      'no turns',
      { ...base, conversation: {} },
      'conversation.turns must be an array, got undefined',
    ],
    [
      'empty turns',
      { ...base, conversation: { turns: [] } },
      'conversation.turns must not be empty',
    ],
    [
      'too many turns',
      { ...base, conversation: { turns: Array.from({ length: 11 }, () => user) } },
      'conversation.turns must hold at most 10 turns, got 11',
    ],
    [
      'a system prompt of the wrong type',
      { ...base, conversation: { system: 1, turns: [user] } },
      'conversation.system must be a string, got 1',
    ],
    [
      'a turn that is not an object',
      { ...base, conversation: { turns: [user, null] } },
      'conversation.turns[1] must be an object, got null',
    ],
    [
      'a bad role',
      { ...base, conversation: { turns: [user, user, { role: 'system' }] } },
      "conversation.turns[2].role must be 'user', 'assistant' or 'tool', got 'system'",
    ],
    [
      'empty user content',
      { ...base, conversation: { turns: [{ role: 'user', content: '' }] } },
      'conversation.turns[0].content must not be empty',
    ],
    [
      'user content of the wrong type',
      { ...base, conversation: { turns: [{ role: 'user', content: 5 }] } },
      'conversation.turns[0].content must be a string or an array of parts, got 5',
    ],
    [
      'a bad part type',
      { ...base, conversation: { turns: [{ role: 'user', content: [{ type: 'audio' }] }] } },
      "conversation.turns[0].content[0].type must be 'text' or 'image', got 'audio'",
    ],
    [
      'an image URL that is not http',
      {
        ...base,
        conversation: {
          turns: [{ role: 'user', content: [{ type: 'image', url: 'file:///etc/passwd' }] }],
        },
      },
      'conversation.turns[0].content[0].url must be an http or https URL',
    ],
    [
      'an image that is not base64',
      {
        ...base,
        conversation: {
          turns: [
            {
              role: 'user',
              content: [{ type: 'image', mediaType: 'image/png', data: 'not base64!' }],
            },
          ],
        },
      },
      'conversation.turns[0].content[0].data must be base64',
    ],
    [
      'an image media type that is not an image',
      {
        ...base,
        conversation: {
          turns: [
            { role: 'user', content: [{ type: 'image', mediaType: 'text/html', data: 'aGk=' }] },
          ],
        },
      },
      "conversation.turns[0].content[0].mediaType must be an image type, got 'text/html'",
    ],
    [
      'assistant text of the wrong type',
      { ...base, conversation: { turns: [user, { role: 'assistant', text: null }] } },
      'conversation.turns[1].text must be a string, got null',
    ],
    [
      'an empty assistant turn',
      { ...base, conversation: { turns: [user, { role: 'assistant', text: '' }] } },
      "conversation.turns[1].text must not be empty when the turn has no toolCalls or items (unless its stopReason is 'aborted')",
    ],
    [
      'negative usage',
      {
        ...base,
        conversation: {
          turns: [user, { ...assistant, usage: { inputTokens: -1, outputTokens: 0 } }],
        },
      },
      'conversation.turns[1].usage.inputTokens must be between 0 and 9007199254740991, got -1',
    ],
    [
      'a bad stop reason',
      { ...base, conversation: { turns: [user, { ...assistant, stopReason: 'done' }] } },
      "conversation.turns[1].stopReason must be 'stop', 'length', 'tool-calls', 'refusal', 'aborted' or 'other', got 'done'",
    ],
    [
      'a tool call without input',
      {
        ...base,
        conversation: { turns: [user, { ...assistant, toolCalls: [{ id: 'c', name: 'n' }] }] },
      },
      'conversation.turns[1].toolCalls[0].input is required',
    ],
    [
      'items data that is not an array',
      {
        ...base,
        conversation: { turns: [user, { ...assistant, items: { ...assistant.items, data: {} } }] },
      },
      'conversation.turns[1].items.data must be an array, got an object',
    ],
    [
      'items without a tag',
      { ...base, conversation: { turns: [user, { ...assistant, items: { data: [] } }] } },
      'conversation.turns[1].items.provider must be a string, got undefined',
    ],
    [
      'items nested too deep',
      {
        ...base,
        conversation: {
          turns: [
            user,
            { ...assistant, items: { ...assistant.items, data: [[[[[[[[[[1]]]]]]]]]] } },
          ],
        },
      },
      'conversation.turns[1].items.data nests deeper than 8 levels',
    ],
    [
      'a tool turn after a user turn',
      { ...base, conversation: { turns: [user, { role: 'tool', results: [] }] } },
      'conversation.turns[1] must follow an assistant turn with toolCalls',
    ],
    [
      'a tool result for an unknown call',
      {
        ...base,
        conversation: {
          turns: [
            user,
            assistant,
            { role: 'tool', results: [{ callId: 'zz', name: 'lookup', output: 1 }] },
          ],
        },
      },
      "conversation.turns[2].results[0].callId 'zz' matches no tool call of the turn before",
    ],
    [
      'more tool calls in one turn than the limit',
      {
        ...base,
        conversation: {
          turns: [
            user,
            {
              ...assistant,
              toolCalls: ['a', 'b', 'c', 'd'].map((id) => ({ id, name: 'lookup', input: {} })),
            },
          ],
        },
      },
      'conversation.turns[1].toolCalls must hold at most 3 tool calls, got 4',
    ],
    [
      'more results in one tool turn than the limit',
      {
        ...base,
        conversation: {
          turns: [
            user,
            assistant,
            {
              role: 'tool',
              results: [1, 2, 3, 4].map(() => ({ callId: 'c1', name: 'lookup', output: 1 })),
            },
          ],
        },
      },
      'conversation.turns[2].results must hold at most 3 results, got 4',
    ],
    [
      'a tool result without output',
      {
        ...base,
        conversation: {
          turns: [user, assistant, { role: 'tool', results: [{ callId: 'c1', name: 'lookup' }] }],
        },
      },
      'conversation.turns[2].results[0].output is required',
    ],
    [
      'a bad thinking level',
      { ...base, thinking: 'extreme' },
      "thinking must be 'off', 'low', 'medium', 'high' or 'max', got 'extreme'",
    ],
    [
      'a thinking budget too large',
      { ...base, thinking: { budgetTokens: 20_000 } },
      'thinking.budgetTokens must be between 1 and 10000, got 20000',
    ],
    ['tools that are not a list', { ...base, tools: {} }, 'tools must be an array, got an object'],
    [
      'too many tools',
      { ...base, tools: Array.from({ length: 5 }, (_, i) => ({ name: `t${i}`, parameters: {} })) },
      'tools must hold at most 4 tools, got 5',
    ],
    [
      'a bad tool name',
      { ...base, tools: [{ name: 'no spaces', parameters: {} }] },
      "tools[0].name must match ^[A-Za-z0-9_-]{1,64}$, got 'no spaces'",
    ],
    [
      'a repeated tool name',
      {
        ...base,
        tools: [
          { name: 'a', parameters: {} },
          { name: 'a', parameters: {} },
        ],
      },
      "tools[1].name repeats the tool name 'a'",
    ],
    [
      'tool parameters that are not an object schema',
      { ...base, tools: [{ name: 'a', parameters: { type: 'string' } }] },
      "tools[0].parameters.type must be 'object', got 'string'",
    ],
    [
      'a tool choice naming no tool',
      { ...base, toolChoice: { name: 'x' } },
      "toolChoice.name 'x' names no tool in tools",
    ],
    [
      'a required tool choice with no tools',
      { ...base, toolChoice: 'required' },
      "toolChoice 'required' needs tools",
    ],
    [
      'a fractional maxTokens',
      { ...base, maxTokens: 1.5 },
      'maxTokens must be an integer, got 1.5',
    ],
    [
      'a maxTokens over the limit',
      { ...base, maxTokens: 10_001 },
      'maxTokens must be between 1 and 10000, got 10001',
    ],
    [
      'a temperature of the wrong type',
      { ...base, temperature: '1' },
      "temperature must be a number, got '1'",
    ],
    [
      'a temperature out of range',
      { ...base, temperature: 3 },
      'temperature must be between 0 and 2, got 3',
    ],
    [
      'a bad response format',
      { ...base, responseFormat: { type: 'xml' } },
      "responseFormat.type must be 'json', got 'xml'",
    ],
  ]
  for (const [name, body, message] of refusals) {
    it(`refuses ${name}, naming the field`, () => {
      expect(problem(body)).toBe(message)
    })
  }

  it('refuses __proto__ and constructor keys without polluting any prototype', () => {
    const polluting = JSON.parse(
      '{"model":"mock/echo","conversation":{"turns":[{"role":"user","content":"x"}]},"__proto__":{"polluted":true}}',
    ) as unknown
    expect(problem(polluting)).toMatch(/^__proto__ is not a known field/)
    expect(problem({ ...base, constructor: { prototype: { polluted: true } } })).toMatch(
      /^constructor is not a known field/,
    )
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })

  it('never reads an inherited member such as constructor as a field value', () => {
    const body = JSON.parse(
      '{"model":"mock/echo","conversation":{"turns":[{"role":"user","content":"x","__proto__":{"role":"tool"}}]}}',
    ) as unknown
    expect(accepted(body).conversation.turns[0]).toEqual({ role: 'user', content: 'x' })
    expect(problem({ ...base, conversation: { turns: [{ content: 'x' }] } })).toBe(
      "conversation.turns[0].role must be 'user', 'assistant' or 'tool', got undefined",
    )
  })
})

describe('validateChatRequest: stop sequences and caching', () => {
  it('takes stop sequences and cache settings, and names what is wrong with them', () => {
    const ok = validateChatRequest(
      { ...base, stop: ['\n\nUser:', 'END'], cache: { key: 'tenant-1', ttl: '1h' } },
      limits,
    )
    expect(ok.ok && ok.value.options).toEqual({
      stop: ['\n\nUser:', 'END'],
      cache: { key: 'tenant-1', ttl: '1h' },
    })
    expect(validateChatRequest({ ...base, cache: true }, limits)).toMatchObject({
      ok: true,
      value: { options: { cache: true } },
    })
    for (const [body, message] of [
      [{ ...base, stop: 'END' }, 'stop must be an array, got '],
      [{ ...base, stop: [''] }, 'stop[0] must not be empty'],
      [{ ...base, stop: Array(17).fill('x') }, 'stop must hold at most 16 sequences, got 17'],
      [{ ...base, cache: 'yes' }, "cache must be true, false or { key?, ttl? }, got 'yes'"],
      [{ ...base, cache: { ttl: '1d' } }, "cache.ttl must be '5m' or '1h', got '1d'"],
      [{ ...base, cache: { key: 'a b' } }, 'cache.key must match'],
      [
        { ...base, cache: { baseURL: 'x' } },
        'cache.baseURL is not a known field (known: key, ttl)',
      ],
    ] as const) {
      const result = validateChatRequest(body, limits)
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.error.message).toContain(message)
    }
  })
})

describe('validateChatRequest: sources and stop details on an assistant turn', () => {
  const turnWith = (extra: Record<string, unknown>) => ({
    model: 'mock/echo',
    conversation: {
      turns: [
        user,
        { role: 'assistant', text: 'Sunny.', usage: { inputTokens: 1, outputTokens: 1 }, ...extra },
        { role: 'user', content: 'Thanks' },
      ],
    },
  })

  it('keeps them, and names what is wrong with them', () => {
    const ok = validateChatRequest(
      turnWith({
        stopReason: 'refusal',
        stopDetails: { category: 'cyber', explanation: 'No.' },
        sources: [{ url: 'https://x.test', title: 'X' }],
      }),
      limits,
    )
    expect(ok.ok && ok.value.conversation.turns[1]).toMatchObject({
      stopDetails: { category: 'cyber', explanation: 'No.' },
      sources: [{ url: 'https://x.test', title: 'X' }],
    })
    const bad = validateChatRequest(turnWith({ sources: [{ url: 3 }] }), limits)
    expect(bad.ok === false && bad.error.message).toBe(
      'conversation.turns[1].sources[0].url must be a string, got 3',
    )
  })
})

describe('validateChatRequest: a stopped answer', () => {
  it('takes an empty assistant turn whose stopReason is aborted, as Chat keeps one', () => {
    const stopped = { role: 'assistant', text: '', thinking: 'Hm', stopReason: 'aborted' }
    const result = validateChatRequest(
      { ...base, conversation: { turns: [user, stopped, { role: 'user', content: 'Go on' }] } },
      limits,
    )
    expect(result.ok).toBe(true)
  })
})

describe('validateChatRequest: bounded work', () => {
  // Thousands of calls in one turn answered by thousands of results: matching each result by a
  // scan of the calls is quadratic. Compared with a body of the same size and shape whose calls
  // and results come one per turn (linear either way), measured side by side.
  const n = 8000
  const call = (i: number) => ({ id: `call_${i}`, name: 'lookup', input: {} })
  const result = (i: number) => ({ callId: `call_${i}`, name: 'lookup', output: 1 })
  const wide = {
    ...base,
    conversation: {
      turns: [
        user,
        { ...assistant, items: undefined, toolCalls: Array.from({ length: n }, (_, i) => call(i)) },
        { role: 'tool', results: Array.from({ length: n }, (_, i) => result(i)) },
      ],
    },
  }
  const long = {
    ...base,
    conversation: {
      turns: [
        user,
        ...Array.from({ length: n }, (_, i) => [
          { ...assistant, items: undefined, toolCalls: [call(i)] },
          { role: 'tool', results: [result(i)] },
        ]).flat(),
      ],
    },
  }
  const roomy = { ...limits, turns: 2 * n + 1, toolCalls: n, toolResults: n }

  /** This process's CPU time in ms: unlike the wall clock, it does not run while others do. */
  const cpuMs = () => {
    const used = process.cpuUsage()
    return (used.user + used.system) / 1000
  }

  function fastest(body: unknown): number {
    let best = Infinity
    for (let i = 0; i < 5; i++) {
      const started = cpuMs()
      const checked = validateChatRequest(body, roomy)
      best = Math.min(best, cpuMs() - started)
      if (!checked.ok) throw new Error(checked.error.message)
    }
    return best
  }

  it('matches tool results to calls in time linear in the body', () => {
    expect(JSON.stringify(wide).length).toBeLessThan(JSON.stringify(long).length)
    fastest(long) // warm up
    const ratio = fastest(wide) / fastest(long)
    // Measured here: a set keeps it near 0.3; a scan per result makes it about 8.
    expect(ratio).toBeLessThan(2)
  })
})
