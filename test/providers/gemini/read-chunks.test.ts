import { describe, expect, it } from 'vitest'
import type { ToolCall } from '../../../src/core/events.ts'
import { createPartialArgs, parsePath } from '../../../src/providers/gemini/partial-args.ts'
import { createChunkReader } from '../../../src/providers/gemini/read-chunks.ts'

function read(...partsPerChunk: unknown[][]) {
  const seen: string[] = []
  const calls: ToolCall[] = []
  const reader = createChunkReader({
    onThinking: (text) => seen.push(`thinking:${text}`),
    onText: (text) => seen.push(`text:${text}`),
    onToolCall: (call) => calls.push(call),
    makeCallId: (index) => `made_${index}`,
  })
  for (const parts of partsPerChunk)
    reader.feed({ candidates: [{ content: { role: 'model', parts } }] })
  reader.feed({ candidates: [{ finishReason: 'STOP' }] })
  return { seen, calls, summary: reader.finish() }
}

describe('gemini chunk reader', () => {
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
    const reader = createChunkReader({
      onThinking: () => {},
      onText: () => {},
      onToolCall: () => {},
      makeCallId: String,
    })
    reader.feed({
      promptFeedback: { blockReason: 'SAFETY' },
      usageMetadata: { promptTokenCount: 1 },
    })
    reader.feed({
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
    expect(reader.finish()).toMatchObject({
      blockReason: 'SAFETY',
      finishReason: 'SAFETY',
      blockedCategories: ['HARM_CATEGORY_HARASSMENT'],
      usage: { promptTokenCount: 2 },
    })
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
