import { describe, expect, it } from 'vitest'
import type { ToolCall } from '../../../src/core/events.ts'
import type { Delta } from '../../../src/kit/guard-stream.ts'
import type { Deltas } from '../../../src/providers/gemini/delta-batch.ts'
import { createChunkMapper } from '../../../src/providers/gemini/map-chunks.ts'
import { createPartialArgs, parsePath } from '../../../src/providers/gemini/partial-args.ts'

const list = (deltas: Deltas): Delta[] =>
  deltas === undefined ? [] : Array.isArray(deltas) ? deltas : [deltas]

function read(...partsPerChunk: unknown[][]) {
  const seen: string[] = []
  const calls: ToolCall[] = []
  const mapper = createChunkMapper((index) => `made_${index}`)
  const take = (deltas: Deltas) => {
    for (const delta of list(deltas)) {
      if (delta.type === 'tool-call') calls.push(delta.call)
      else seen.push(`${delta.type}:${delta.text}`)
    }
  }
  for (const parts of partsPerChunk)
    take(mapper.map({ candidates: [{ content: { role: 'model', parts } }] }))
  take(mapper.map({ candidates: [{ finishReason: 'STOP' }] }))
  take(mapper.flush())
  return { seen, calls, summary: mapper.summary() }
}

describe('gemini chunk mapper', () => {
  it('merges consecutive unsigned text parts of the same kind and keeps thoughts apart from text', () => {
    const { seen, summary } = read(
      [{ text: 'a', thought: true }],
      [{ text: 'b', thought: true }],
      [{ text: 'c' }],
      [{ text: 'd' }],
    )
    expect(seen).toEqual(['thinking:a', 'thinking:b', 'text:c', 'text:d'])
    expect(summary.parts).toEqual([{ text: 'ab', thought: true }, { text: 'cd' }])
  })

  it('never merges text into or out of a part that carries a signature', () => {
    const { summary } = read(
      [{ text: 'one', thoughtSignature: 'S1' }],
      [{ text: 'two' }],
      [{ text: 'three' }],
      [{ text: '', thoughtSignature: 'S2' }],
      [{ text: 'four' }],
    )
    expect(summary.parts).toEqual([
      { text: 'one', thoughtSignature: 'S1' },
      { text: 'twothree' },
      { text: '', thoughtSignature: 'S2' },
      { text: 'four' },
    ])
  })

  it('drops an empty text part that carries nothing and keeps other parts verbatim', () => {
    const code = { executableCode: { language: 'PYTHON', code: 'print(1)' } }
    const { summary, seen } = read([{ text: '' }], [code], [{ text: '' }])
    expect(seen).toEqual([])
    expect(summary.parts).toEqual([code])
  })

  it('gives calls without an id a made-up id and keeps Gemini’s own ids', () => {
    const { calls } = read(
      [{ functionCall: { name: 'a' } }],
      [{ functionCall: { id: 'fc_1', name: 'b', args: { x: 1 } } }],
      [{ functionCall: { name: 'c', args: {} } }],
    )
    expect(calls).toEqual([
      { id: 'made_0', name: 'a', input: {} },
      { id: 'fc_1', name: 'b', input: { x: 1 } },
      { id: 'made_2', name: 'c', input: {} },
    ])
  })

  it('closes a call streamed in pieces when a piece says no more follow', () => {
    const { calls, summary } = read(
      [{ functionCall: { name: 'f', willContinue: true }, thoughtSignature: 'S' }],
      [{ functionCall: { partialArgs: [{ jsonPath: '$.n', numberValue: 1 }] } }],
      [{ text: 'after' }],
    )
    expect(calls).toEqual([{ id: 'made_0', name: 'f', input: { n: 1 } }])
    expect(summary.parts).toEqual([
      { functionCall: { name: 'f', args: { n: 1 } }, thoughtSignature: 'S' },
      { text: 'after' },
    ])
  })

  it('reports the prompt block reason, blocked categories and the last usage', () => {
    const mapper = createChunkMapper(String)
    mapper.map({
      promptFeedback: { blockReason: 'SAFETY' },
      usageMetadata: { promptTokenCount: 1 },
    })
    mapper.map({
      candidates: [
        {
          finishReason: 'SAFETY',
          safetyRatings: [
            { category: 'HARM_CATEGORY_HARASSMENT', blocked: true },
            { category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'LOW' },
          ],
        },
      ],
      usageMetadata: { promptTokenCount: 2 },
    })
    expect(mapper.summary()).toMatchObject({
      blockReason: 'SAFETY',
      finishReason: 'SAFETY',
      blockedCategories: ['HARM_CATEGORY_HARASSMENT'],
      usage: { promptTokenCount: 2 },
    })
  })
  it('ends at the chunk that carries the finish reason, after mapping its parts and usage', () => {
    const mapper = createChunkMapper(String)
    expect(mapper.map({ candidates: [{ content: { parts: [{ text: 'a' }] } }] })).toEqual({
      type: 'text',
      text: 'a',
    })
    expect(mapper.ended).toBe(false)
    const last = mapper.map({
      candidates: [{ content: { parts: [{ text: 'b' }] }, finishReason: 'STOP' }],
      usageMetadata: { candidatesTokenCount: 2 },
    })
    expect(last).toEqual({ type: 'text', text: 'b' })
    expect(mapper.ended).toBe(true)
    expect(mapper.summary()).toMatchObject({
      parts: [{ text: 'ab' }],
      usage: { candidatesTokenCount: 2 },
    })
  })

  it('ends at a chunk that says the prompt was blocked', () => {
    const mapper = createChunkMapper(String)
    expect(mapper.map({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } })).toBeUndefined()
    expect(mapper.ended).toBe(true)
  })

  it('returns one delta for a chunk of one part and a list for a chunk of several', () => {
    const mapper = createChunkMapper((index) => `made_${index}`)
    expect(mapper.map({ candidates: [{ content: { parts: [{ text: '' }] } }] })).toBeUndefined()
    expect(
      mapper.map({
        candidates: [
          {
            content: {
              parts: [
                { text: 'Zwei Abfragen.', thought: true },
                { functionCall: { name: 'a', args: {} } },
                { functionCall: { name: 'b', args: {} } },
              ],
            },
          },
        ],
      }),
    ).toEqual([
      { type: 'thinking', text: 'Zwei Abfragen.' },
      { type: 'tool-call', call: { id: 'made_0', name: 'a', input: {} } },
      { type: 'tool-call', call: { id: 'made_1', name: 'b', input: {} } },
    ])
    expect(mapper.summary().toolCallCount).toBe(2)
  })

  it('gives a call still streaming its arguments at the end to flush', () => {
    const mapper = createChunkMapper((index) => `made_${index}`)
    mapper.map({
      candidates: [{ content: { parts: [{ functionCall: { name: 'f', willContinue: true } }] } }],
    })
    expect(mapper.flush()).toEqual({
      type: 'tool-call',
      call: { id: 'made_0', name: 'f', input: {} },
    })
    expect(mapper.flush()).toBeUndefined()
  })

  it('drops a call still streaming its arguments at the end: no delta, no part, its name told', () => {
    const mapper = createChunkMapper((index) => `made_${index}`)
    mapper.map({ candidates: [{ content: { parts: [{ text: 'vorher' }] } }] })
    mapper.map({
      candidates: [
        {
          content: {
            parts: [
              { functionCall: { name: 'f', willContinue: true }, thoughtSignature: 'S' },
              {
                functionCall: {
                  partialArgs: [{ jsonPath: '$.a', stringValue: 'x' }],
                  willContinue: true,
                },
              },
            ],
          },
        },
      ],
    })
    expect(mapper.drop()).toEqual({ name: 'f' })
    expect(mapper.drop()).toBeUndefined()
    expect(mapper.flush()).toBeUndefined()
    expect(mapper.summary()).toMatchObject({ parts: [{ text: 'vorher' }], toolCallCount: 0 })
  })

  it('keeps a call open across an empty text part, and closes it at a part that says something', () => {
    const open = { functionCall: { name: 'f', willContinue: true } }
    const quiet = createChunkMapper((index) => `made_${index}`)
    quiet.map({
      candidates: [{ content: { parts: [open, { text: '' }, { text: '', thought: true }] } }],
    })
    expect(quiet.drop()).toEqual({ name: 'f' })

    const said = createChunkMapper((index) => `made_${index}`)
    expect(said.map({ candidates: [{ content: { parts: [open, { text: 'so' }] } }] })).toEqual([
      { type: 'tool-call', call: { id: 'made_0', name: 'f', input: {} } },
      { type: 'text', text: 'so' },
    ])
    expect(said.drop()).toBeUndefined()
  })

  it('keeps the last continuation token and each chunk’s grounding and citation records', () => {
    const mapper = createChunkMapper(String)
    const grounding = { groundingChunks: [] }
    const citation = { citationSources: [] }
    mapper.map({ candidates: [{ continuationToken: 'T1', citationMetadata: citation }] })
    mapper.map({
      candidates: [
        { continuationToken: 'T2', groundingMetadata: grounding, finishReason: 'CONTINUATION' },
      ],
    })
    expect(mapper.summary()).toMatchObject({
      continuationToken: 'T2',
      metadata: [
        { grounding: undefined, citation },
        { grounding, citation: undefined },
      ],
    })
  })

  it('joins no text into a part that has no text of its own', () => {
    const { summary } = read([{ thought: true }], [{ text: 'x', thought: true }])
    expect(summary.parts).toEqual([{ thought: true }, { text: 'x', thought: true }])
  })
})

describe('gemini streamed arguments', () => {
  it.each([
    ['$.a', ['a']],
    ['$.a.b[0].c', ['a', 'b', 0, 'c']],
    ["$['odd key'][2]", ['odd key', 2]],
    ['$["x"]', ['x']],
    ['a.b', undefined],
    ['$', undefined],
    ['$.a[', undefined],
  ])('reads the JSON path %s', (path, keys) => {
    expect(parsePath(path)).toEqual(keys)
  })

  it('joins continued strings and builds nested objects and arrays', () => {
    const args = createPartialArgs()
    args.apply([{ jsonPath: '$.items[0].name', stringValue: 'Grü', willContinue: true }])
    args.apply([{ jsonPath: '$.items[0].name', stringValue: 'ße' }])
    args.apply([{ jsonPath: '$.items[1].ok', boolValue: false }])
    args.apply([{ jsonPath: '$.note', nullValue: 'NULL_VALUE' }])
    args.apply([{ jsonPath: '$.count', numberValue: 2.5 }])
    args.apply([{ jsonPath: 'bad path', stringValue: 'ignored' }, 'not a fragment'])
    expect(args.value()).toEqual({
      items: [{ name: 'Grüße' }, { ok: false }],
      note: null,
      count: 2.5,
    })
  })

  it('replaces a finished string value instead of appending to it', () => {
    const args = createPartialArgs()
    args.apply([{ jsonPath: '$.s', stringValue: 'first' }])
    args.apply([{ jsonPath: '$.s', stringValue: 'second' }])
    expect(args.value()).toEqual({ s: 'second' })
  })
})
