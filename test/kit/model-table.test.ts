import { describe, expect, it } from 'vitest'
import { levelForBudget, nearestLevel } from '../../src/kit/effort.ts'
import { modelTable } from '../../src/kit/model-table.ts'

describe('modelTable', () => {
  const table = modelTable(
    { tools: true, maxOutputTokens: 8_000, levels: ['low', 'high'] },
    {
      'big-*': { maxOutputTokens: 64_000 },
      'big-2*': { levels: ['low', 'medium', 'high'] },
      'big-2-mini': { tools: false },
    },
  )

  it('gives an exact id its own line over the defaults', () => {
    expect(table.find('big-2-mini')).toEqual({
      tools: false,
      maxOutputTokens: 8_000,
      levels: ['low', 'high'],
    })
  })

  it('gives a model the line of the longest family it belongs to', () => {
    expect(table.find('big-2-turbo')).toEqual({
      tools: true,
      maxOutputTokens: 8_000,
      levels: ['low', 'medium', 'high'],
    })
    expect(table.find('big-1')).toMatchObject({ maxOutputTokens: 64_000 })
  })

  it('knows no model outside its lines', () => {
    expect(table.find('small')).toBeUndefined()
    expect(table.find('big')).toBeUndefined()
  })
})

describe('effort levels', () => {
  it('reads a budget as a level, with thinkwire’s thresholds or a provider’s own', () => {
    expect([1, 4_096, 4_097, 12_288, 24_576, 24_577].map((b) => levelForBudget(b))).toEqual([
      'low',
      'low',
      'medium',
      'medium',
      'high',
      'max',
    ])
    expect(levelForBudget(2_000, { low: 1_024, medium: 8_192, high: Infinity })).toBe('medium')
  })

  it('picks the nearest level a model takes, rounding down or up', () => {
    const levels = ['low', 'medium', 'high']
    expect(nearestLevel(levels, 'medium')).toBe('medium')
    expect(nearestLevel(levels, 'max')).toBe('high')
    expect(nearestLevel(levels, 'minimal')).toBe('low')
    expect(nearestLevel(['low', 'high'], 'medium', 'down')).toBe('low')
    expect(nearestLevel(['low', 'high'], 'medium', 'up')).toBe('high')
    expect(nearestLevel(['minimal', 'low'], 'max', 'up')).toBe('low')
  })
})
