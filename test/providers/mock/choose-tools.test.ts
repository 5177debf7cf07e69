import { describe, expect, it } from 'vitest'
import type { ToolSpec } from '../../../src/core/adapter.ts'
import { chooseTools, namesTool, withoutTool } from '../../../src/providers/mock/choose-tools.ts'

const tool = (name: string): ToolSpec => ({ name, parameters: { type: 'object' } })
const clock = tool('clock')
const saveNote = tool('save_note')
const weather = tool('get_weather')
const names = (tools: ToolSpec[]) => tools.map((t) => t.name)

describe('namesTool', () => {
  it('finds a name as a whole word, case aside, its parts joined by _, -, spaces or nothing', () => {
    for (const text of [
      'use get_weather',
      'Get-Weather, please',
      'what would GET WEATHER say?',
      'getweather for Oslo',
      '(get_weather)',
    ]) {
      expect(namesTool(text, 'get_weather'), text).toBe(true)
    }
    expect(namesTool('ask getWeather', 'getWeather')).toBe(true)
    expect(namesTool('ask get weather', 'getWeather')).toBe(true)
  })

  it('does not find a part of the name, or the name inside a longer word', () => {
    for (const text of ['weather in Paris', 'get_weather_now', 'forget weather', 'clocks']) {
      expect(namesTool(text, text === 'clocks' ? 'clock' : 'get_weather'), text).toBe(false)
    }
  })

  it('reads a name with pattern characters literally, and an empty name as none', () => {
    expect(namesTool('call a.b now', 'a.b')).toBe(true)
    expect(namesTool('call axb now', 'a.b')).toBe(false)
    expect(namesTool('anything', '_')).toBe(false)
  })
})

describe('withoutTool', () => {
  it('takes every mention of the tool out of the text and tidies what is left', () => {
    expect(withoutTool('Use get_weather for Paris.', 'get_weather')).toBe('Use for Paris.')
    expect(withoutTool('get weather: Oslo', 'get_weather')).toBe('Oslo')
    expect(withoutTool('Please save_note "buy milk", save_note!', 'save_note')).toBe(
      'Please "buy milk",!',
    )
  })
})

describe('chooseTools', () => {
  it('calls the first offered tool the text names, and says which others it named', () => {
    const chosen = chooseTools([clock, saveNote, weather], undefined, 'save note, then the clock')
    expect(names(chosen.tools)).toEqual(['clock'])
    expect(chosen.why).toBe(
      'The message names clock (and save_note; one call is enough), so I call it.',
    )
  })

  it('calls none when the text names none, and says which tools there are', () => {
    const chosen = chooseTools([clock, saveNote], 'auto', 'hello')
    expect(chosen.tools).toEqual([])
    expect(chosen.why).toContain('clock and save_note')
  })

  it("calls none when the tool choice is 'none', even a named one", () => {
    const chosen = chooseTools([clock], 'none', 'what does the clock say')
    expect(chosen.tools).toEqual([])
    expect(chosen.why).toMatch(/names clock.*'none'/)
  })

  it("calls the named tools, or else the first offered, when a call is 'required'", () => {
    expect(names(chooseTools([clock, saveNote], 'required', 'save_note it').tools)).toEqual([
      'save_note',
    ])
    expect(names(chooseTools([clock, saveNote], 'required', 'hello').tools)).toEqual(['clock'])
  })

  it('calls exactly the tool the tool choice names, and none when it is not offered', () => {
    const chosen = chooseTools([clock, saveNote], { name: 'save_note' }, 'what time is it, clock?')
    expect(names(chosen.tools)).toEqual(['save_note'])
    expect(chooseTools([clock], { name: 'other' }, 'clock').tools).toEqual([])
  })

  it('calls a tool offered twice once', () => {
    expect(names(chooseTools([clock, clock], undefined, 'clock').tools)).toEqual(['clock'])
  })
})
