import { describe, expect, it } from 'vitest'
import { createThinkTagSplitter } from '../../../src/providers/openai-compatible/think-tags.ts'

type Piece = ['thinking' | 'text', string]

/** Runs the splitter over `chunks`; returns the pieces with neighbours of one kind joined. */
function split(chunks: string[], startsInThinking = false): Piece[] {
  const pieces: Piece[] = []
  const push = (kind: Piece[0]) => (text: string) => {
    expect(text).not.toBe('')
    const last = pieces.at(-1)
    if (last?.[0] === kind) last[1] += text
    else pieces.push([kind, text])
  }
  const splitter = createThinkTagSplitter({
    onThinking: push('thinking'),
    onText: push('text'),
    startsInThinking,
  })
  for (const chunk of chunks) splitter.feed(chunk)
  splitter.flush()
  return pieces
}

/** Every way to cut `input` in two, in three, and one character at a time. */
function cuts(input: string): string[][] {
  const chars = Array.from(input)
  const all: string[][] = [chars]
  for (let i = 0; i <= chars.length; i++) {
    all.push([chars.slice(0, i).join(''), chars.slice(i).join('')])
    for (let j = i; j <= chars.length; j += 3)
      all.push([chars.slice(0, i).join(''), chars.slice(i, j).join(''), chars.slice(j).join('')])
  }
  return all
}

const cases: { name: string; input: string; startsInThinking?: boolean; expected: Piece[] }[] = [
  {
    name: 'reasoning in tags, then the answer',
    input: '<think>\nLet me see… 2 + 2 = 4 ✓\n</think>\n\nIt is 4 🎉',
    expected: [
      ['thinking', 'Let me see… 2 + 2 = 4 ✓\n'],
      ['text', 'It is 4 🎉'],
    ],
  },
  {
    name: 'whitespace before the opening tag',
    input: '  \n<think>Grübeln</think>Antwort',
    expected: [
      ['thinking', 'Grübeln'],
      ['text', 'Antwort'],
    ],
  },
  {
    name: 'an empty block when thinking is off',
    input: '<think>\n\n</think>\n\nHallo',
    expected: [['text', 'Hallo']],
  },
  {
    name: 'no tags at all',
    input: 'Plain answer <think>not a tag here</think> end',
    expected: [['text', 'Plain answer <think>not a tag here</think> end']],
  },
  {
    name: 'an answer that starts like the tag but is not one',
    input: '<thin ice>',
    expected: [['text', '<thin ice>']],
  },
  {
    name: 'reasoning cut off before its closing tag',
    input: '<think>still going </th',
    expected: [['thinking', 'still going </th']],
  },
  {
    name: 'a closing tag again inside the answer',
    input: '<think>a</think>b</think>c',
    expected: [
      ['thinking', 'a'],
      ['text', 'b</think>c'],
    ],
  },
  {
    name: 'a missing opening tag: text that ends in </think> was reasoning',
    input: 'Erst überlegen 🤔\n</think>\n\nFertig.',
    startsInThinking: true,
    expected: [
      ['thinking', 'Erst überlegen 🤔\n'],
      ['text', 'Fertig.'],
    ],
  },
  {
    name: 'an opening tag that is there after all, in a stream that starts inside',
    input: '<think>\nhmm</think>ok',
    startsInThinking: true,
    expected: [
      ['thinking', 'hmm'],
      ['text', 'ok'],
    ],
  },
  {
    name: 'a stream that starts inside and never closes',
    input: 'nur Gedanken',
    startsInThinking: true,
    expected: [['thinking', 'nur Gedanken']],
  },
]

describe('think tag splitter', () => {
  for (const { name, input, startsInThinking, expected } of cases) {
    it(`splits ${name} the same way wherever the chunks are cut`, () => {
      expect(split([input], startsInThinking)).toEqual(expected)
      for (const chunks of cuts(input)) expect(split(chunks, startsInThinking)).toEqual(expected)
    })
  }

  it('splits the tags when each arrives in pieces, as in the walk-through', () => {
    expect(split(['<th', 'ink>\nLet', ' me see</th', 'ink>\n\nHi'])).toEqual([
      ['thinking', 'Let me see'],
      ['text', 'Hi'],
    ])
  })

  it('streams reasoning as it comes, holding back only what may be a tag', () => {
    const seen: string[] = []
    const splitter = createThinkTagSplitter({
      onThinking: (t) => seen.push(`thinking:${t}`),
      onText: (t) => seen.push(`text:${t}`),
    })
    splitter.feed('<think>abc')
    expect(seen).toEqual(['thinking:abc'])
    splitter.feed('def</')
    expect(seen).toEqual(['thinking:abc', 'thinking:def'])
    splitter.feed('think>xyz')
    expect(seen).toEqual(['thinking:abc', 'thinking:def', 'text:xyz'])
    splitter.flush()
    expect(seen).toHaveLength(3)
  })

  it('takes other tag names', () => {
    const pieces: string[] = []
    const splitter = createThinkTagSplitter({
      onThinking: (t) => pieces.push(`T:${t}`),
      onText: (t) => pieces.push(`A:${t}`),
      open: '<thinking>',
      close: '</thinking>',
    })
    for (const c of ['<think', 'ing>x</thi', 'nking>y']) splitter.feed(c)
    splitter.flush()
    expect(pieces).toEqual(['T:x', 'A:y'])
  })
})
