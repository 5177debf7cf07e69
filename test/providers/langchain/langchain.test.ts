import { FakeListChatModel, FakeStreamingChatModel } from '@langchain/core/utils/testing'
import { describe, expect, it } from 'vitest'
import type { AssistantTurn, Conversation } from '../../../src/core/conversation.ts'
import { fromLangChain } from '../../../src/providers/langchain/index.ts'
import { collect, doneTurn, failure } from '../../helpers/stream.ts'
import { chunk, RecordingChatModel, usageChunk, type Script } from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Was ist 2 + 2?' }] }

const answerScript = (): Script => ({
  chunks: [
    chunk({ content: '', additional_kwargs: { reasoning_content: 'Zwei und zwei … ' } }),
    chunk({ content: '', additional_kwargs: { reasoning_content: 'vier 🧮' } }),
    chunk({ content: 'Es ist ' }),
    chunk({ content: 'vier.' }),
    chunk({
      content: '',
      tool_call_chunks: [
        { id: 'call_lc_1', name: 'log', args: '{"n":', index: 0, type: 'tool_call_chunk' },
      ],
    }),
    chunk({ content: '', tool_call_chunks: [{ args: ' 4}', index: 0, type: 'tool_call_chunk' }] }),
    usageChunk({
      input_tokens: 12,
      output_tokens: 9,
      total_tokens: 21,
      output_token_details: { reasoning: 5 },
      input_token_details: { cache_read: 3 },
    }),
  ],
})

describe('fromLangChain', () => {
  it('streams reasoning, text and a tool call assembled from its chunks, and a plain-text turn', async () => {
    const model = new RecordingChatModel(answerScript())
    const events = await collect(fromLangChain(model).stream(ask))
    expect(events.filter((e) => e.type !== 'done')).toEqual([
      { type: 'thinking', text: 'Zwei und zwei … ' },
      { type: 'thinking', text: 'vier 🧮' },
      { type: 'text', text: 'Es ist ' },
      { type: 'text', text: 'vier.' },
      { type: 'tool-call', call: { id: 'call_lc_1', name: 'log', input: { n: 4 } } },
    ])
    const turn = doneTurn(events)
    expect(turn).toMatchObject({
      text: 'Es ist vier.',
      thinking: 'Zwei und zwei … vier 🧮',
      stopReason: 'tool-calls',
      usage: { inputTokens: 12, outputTokens: 9, reasoningTokens: 5, cacheReadTokens: 3 },
      items: {
        provider: 'langchain-fake',
        model: 'fake',
        thinkingMode: 'default',
        data: [
          {
            text: 'Es ist vier.',
            reasoning: 'Zwei und zwei … vier 🧮',
            toolCalls: [{ id: 'call_lc_1', name: 'log', args: { n: 4 } }],
          },
        ],
      },
    })
  })

  it('streams FakeListChatModel answers and names the turn after the model type', async () => {
    const model = new FakeListChatModel({ responses: ['Grüß dich 👋'] })
    const adapter = fromLangChain(model)
    expect(adapter.provider).toBe('langchain-fake-list')
    const events = await collect(adapter.stream(ask))
    const texts = events.flatMap((e) => (e.type === 'text' ? [e.text] : []))
    expect(texts).toEqual([...'Grüß dich 👋'])
    expect(doneTurn(events)).toMatchObject({ text: 'Grüß dich 👋', stopReason: 'stop' })
  })

  it('takes complete tool calls from FakeStreamingChatModel chunks, with a stable id when none is given', async () => {
    const model = new FakeStreamingChatModel({
      sleep: 0,
      chunks: [
        chunk({ content: 'Ich rechne.' }),
        chunk({
          content: '',
          tool_calls: [{ name: 'add', args: { a: 2, b: 2 }, type: 'tool_call' }],
        }),
      ],
    })
    const events = await collect(
      fromLangChain(model).stream({
        turns: [...ask.turns, { role: 'user', content: 'Nutze add.' }],
      }),
    )
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([
      { type: 'tool-call', call: { id: 'lc_2_0', name: 'add', input: { a: 2, b: 2 } } },
    ])
  })

  it('reads reasoning and text from content blocks', async () => {
    const model = new RecordingChatModel({
      chunks: [
        chunk({ content: [{ type: 'thinking', thinking: 'Hmm, ' }] }),
        chunk({ content: [{ type: 'reasoning', reasoning: 'also …' }] }),
        chunk({ content: [{ type: 'text', text: 'Antwort' }] }),
      ],
    })
    const turn = doneTurn(await collect(fromLangChain(model).stream(ask)))
    expect(turn.thinking).toBe('Hmm, also …')
    expect(turn.text).toBe('Antwort')
  })

  it('binds tools in LangChain’s tool format and maps the tool choice', async () => {
    const model = new RecordingChatModel({ chunks: [chunk({ content: 'ok' })] })
    await collect(
      fromLangChain(model).stream(ask, {
        tools: [
          {
            name: 'add',
            description: 'Adds',
            parameters: { properties: { a: { type: 'number' } } },
          },
        ],
        toolChoice: 'required',
      }),
    )
    expect(model.boundTools).toEqual([
      {
        name: 'add',
        description: 'Adds',
        schema: { type: 'object', properties: { a: { type: 'number' } } },
      },
    ])
    expect(model.boundOptions).toEqual({ tool_choice: 'any' })
  })

  it('works with a real fake model’s bindTools', async () => {
    const model = new FakeListChatModel({ responses: ['fertig'] })
    const turn = doneTurn(
      await collect(
        fromLangChain(model).stream(ask, {
          tools: [{ name: 'add', parameters: { type: 'object', properties: {} } }],
          toolChoice: { name: 'add' },
        }),
      ),
    )
    expect(turn.text).toBe('fertig')
  })

  it('replays its own turn with its reasoning and rebuilds other turns without it', async () => {
    const first = doneTurn(
      await collect(fromLangChain(new RecordingChatModel(answerScript())).stream(ask)),
    )
    const foreign: AssistantTurn = {
      role: 'assistant',
      text: 'Fremd',
      thinking: 'foreign reasoning',
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'stop',
      items: {
        provider: 'gemini',
        model: 'gemini-3-flash-preview',
        thinkingMode: 'default',
        data: [{ text: 'Fremd', thoughtSignature: 'SIG' }],
      },
    }
    const conversation: Conversation = {
      system: 'Kurz.',
      turns: [
        ...ask.turns,
        first,
        {
          role: 'tool',
          results: [{ callId: 'call_lc_1', name: 'log', output: { ok: true }, isError: true }],
        },
        foreign,
        { role: 'user', content: 'Und jetzt?' },
      ],
    }
    const model = new RecordingChatModel({ chunks: [chunk({ content: 'ok' })] })
    await collect(fromLangChain(model).stream(conversation))
    expect(model.calls[0]?.messages).toEqual([
      { type: 'system', content: 'Kurz.' },
      { type: 'human', content: 'Was ist 2 + 2?' },
      {
        type: 'ai',
        content: 'Es ist vier.',
        additional_kwargs: { reasoning_content: 'Zwei und zwei … vier 🧮' },
        tool_calls: [{ id: 'call_lc_1', name: 'log', args: { n: 4 }, type: 'tool_call' }],
      },
      { type: 'tool', content: '{"ok":true}', tool_call_id: 'call_lc_1', status: 'error' },
      { type: 'ai', content: 'Fremd' },
      { type: 'human', content: 'Und jetzt?' },
    ])
  })

  it('drops per-call settings a LangChain model takes at construction, with warnings', async () => {
    const model = new RecordingChatModel({ chunks: [chunk({ content: 'ok' })] })
    const turn = doneTurn(
      await collect(
        fromLangChain(model).stream(ask, { thinking: 'high', maxTokens: 10, temperature: 0 }),
      ),
    )
    expect(turn.warnings).toEqual([
      'thinking: set it on the LangChain model itself; dropped',
      'maxTokens: set it on the LangChain model itself; dropped',
      'temperature: set it on the LangChain model itself; dropped',
    ])
  })

  it('passes its provider options to the model as call options', async () => {
    const model = new RecordingChatModel({ chunks: [chunk({ content: 'ok' })] })
    await collect(
      fromLangChain(model, { provider: 'my-lc' }).stream(ask, {
        providerOptions: { 'my-lc': { stop: ['ENDE'] }, other: { stop: ['x'] } },
      }),
    )
    expect(model.calls[0]?.options).toMatchObject({ stop: ['ENDE'] })
  })

  it('aborts a FakeListChatModel mid-stream and throws an aborted error', async () => {
    const model = new FakeListChatModel({ responses: ['langsam und lang'], sleep: 5 })
    const controller = new AbortController()
    const seen: string[] = []
    const { error } = await failure(
      (async function* () {
        for await (const event of fromLangChain(model).stream(ask, { signal: controller.signal })) {
          if (event.type === 'text') seen.push(event.text)
          yield event
          controller.abort()
        }
      })(),
    )
    expect(seen).toEqual(['l'])
    expect(error).toMatchObject({ kind: 'aborted' })
  })

  it('maps an SDK error with a status and retry-after to a rate-limit error', async () => {
    const sdkError = Object.assign(new Error('429 Too many requests'), {
      status: 429,
      headers: new Headers({ 'retry-after': '3' }),
    })
    const model = new RecordingChatModel({ chunks: [], failWith: sdkError })
    const { error } = await failure(fromLangChain(model).stream(ask))
    expect(error).toMatchObject({
      kind: 'rate-limit',
      status: 429,
      retryAfterMs: 3000,
      retryable: true,
    })
  })

  it('maps LangChain’s error codes', async () => {
    const lcError = Object.assign(new Error('Incorrect API key provided'), {
      lc_error_code: 'MODEL_AUTHENTICATION',
    })
    const model = new RecordingChatModel({ chunks: [], failWith: lcError })
    const { error } = await failure(fromLangChain(model).stream(ask))
    expect(error).toMatchObject({ kind: 'auth', retryable: false })
  })

  it('maps an error thrown by FakeListChatModel to a server error', async () => {
    const model = new FakeListChatModel({ responses: ['x'] })
    const { error } = await failure(
      fromLangChain(model, { provider: 'fake' }).stream(ask, {
        providerOptions: { fake: { thrownErrorString: 'kaputt' } },
      }),
    )
    expect(error).toMatchObject({ kind: 'server', provider: 'fake' })
    expect((error as Error).message).toContain('kaputt')
  })

  it('reports no thinking control, no JSON schemas, and tools when the model can bind them', () => {
    const model = new FakeListChatModel({ responses: ['x'] })
    expect(fromLangChain(model).capabilities).toEqual({
      thinking: { mode: 'none' },
      tools: true,
      json: false,
    })
    const unbindable = Object.assign(new FakeListChatModel({ responses: ['x'] }), {
      bindTools: undefined,
    })
    expect(fromLangChain(unbindable).capabilities).toMatchObject({ tools: false })
  })

  it('drops tools with a warning when the model cannot bind them', async () => {
    const unbindable = Object.assign(new FakeListChatModel({ responses: ['ok'] }), {
      bindTools: undefined,
    })
    const turn = doneTurn(
      await collect(
        fromLangChain(unbindable).stream(ask, {
          tools: [{ name: 'add', parameters: { type: 'object' } }],
        }),
      ),
    )
    expect(turn.text).toBe('ok')
    expect(turn.warnings).toEqual(['tools: this LangChain model cannot bind tools; dropped'])
  })
})
