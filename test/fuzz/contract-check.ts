/**
 * An independent check of what an adapter may receive: the `Conversation` and `CallOptions`
 * contracts of src/core, plus what every provider refuses (empty user content, a tool turn that
 * answers no call, a tool name providers do not take). It shares no code with the relay's
 * validator, so the two can disagree, and a fuzz run then says so. No vitest import: the stress
 * script uses it too.
 */

const ROLES = new Set(['user', 'assistant', 'tool'])
const STOP_REASONS = new Set(['stop', 'length', 'tool-calls', 'refusal', 'aborted', 'other'])
const LEVELS = new Set(['off', 'low', 'medium', 'high', 'max'])
const CHOICES = new Set(['auto', 'none', 'required'])
const OPTION_KEYS = new Set([
  'signal',
  'idleTimeoutMs',
  'thinking',
  'tools',
  'toolChoice',
  'maxTokens',
  'temperature',
  'responseFormat',
])
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/

type Dict = { [key: string]: unknown }

/** A plain object made by JSON or a literal (no class instance, no null prototype trick). */
function isPlain(value: unknown): value is Dict {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  return Object.getPrototypeOf(value) === Object.prototype
}

const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0
const isPositive = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 1

/** Whether `value` is JSON: what survives a JSON round trip unchanged, within `depth`. */
function isJson(value: unknown, depth = 64): boolean {
  if (depth < 0) return false
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true
  if (typeof value === 'number') return Number.isFinite(value)
  if (Array.isArray(value)) return value.every((item) => isJson(item, depth - 1))
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) return false
    return Object.values(value).every((item) => isJson(item, depth - 1))
  }
  return false
}

function onlyKeys(value: Dict, allowed: readonly string[], at: string, out: string[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) out.push(`${at} has an unknown member '${key}'`)
  }
}

/** Everything wrong with a conversation an adapter received (empty when it is valid). */
export function conversationProblems(value: unknown): string[] {
  const out: string[] = []
  if (!isPlain(value)) return ['conversation is not a plain object']
  onlyKeys(value, ['system', 'turns'], 'conversation', out)
  const { system, turns } = value
  if (system !== undefined && (typeof system !== 'string' || system === '')) {
    out.push('conversation.system is not a non-empty string')
  }
  if (!Array.isArray(turns) || turns.length === 0) return [...out, 'conversation.turns is empty']
  let calls: string[] = []
  turns.forEach((turn: unknown, i) => {
    const at = `turns[${i}]`
    if (!isPlain(turn) || !ROLES.has(turn['role'] as string)) {
      out.push(`${at} has no known role`)
      return
    }
    if (turn['role'] === 'user') {
      calls = []
      onlyKeys(turn, ['role', 'content'], at, out)
      userContent(turn['content'], at, out)
    } else if (turn['role'] === 'assistant') {
      calls = assistant(turn, at, out)
    } else {
      onlyKeys(turn, ['role', 'results'], at, out)
      const results = turn['results']
      if (calls.length === 0) out.push(`${at} answers no tool call`)
      if (!Array.isArray(results) || results.length === 0) out.push(`${at}.results is empty`)
      else {
        results.forEach((result: unknown, j) => {
          const where = `${at}.results[${j}]`
          if (!isPlain(result)) return out.push(`${where} is not an object`)
          onlyKeys(result, ['callId', 'name', 'output', 'isError'], where, out)
          if (!calls.includes(result['callId'] as string))
            out.push(`${where}.callId answers no call`)
          if (typeof result['name'] !== 'string' || result['name'] === '')
            out.push(`${where}.name is not a non-empty string`)
          if (!('output' in result) || !isJson(result['output']))
            out.push(`${where}.output is not JSON`)
          if (result['isError'] !== undefined && typeof result['isError'] !== 'boolean')
            out.push(`${where}.isError is not a boolean`)
          return undefined
        })
      }
    }
  })
  return out
}

function userContent(content: unknown, at: string, out: string[]): void {
  if (typeof content === 'string') {
    if (content === '') out.push(`${at}.content is empty`)
    return
  }
  if (!Array.isArray(content) || content.length === 0) {
    out.push(`${at}.content is neither text nor parts`)
    return
  }
  content.forEach((part: unknown, j) => {
    const where = `${at}.content[${j}]`
    if (!isPlain(part)) return out.push(`${where} is not an object`)
    if (part['type'] === 'text') {
      onlyKeys(part, ['type', 'text'], where, out)
      if (typeof part['text'] !== 'string' || part['text'] === '')
        out.push(`${where}.text is empty`)
    } else if (part['type'] === 'image' && 'url' in part) {
      onlyKeys(part, ['type', 'url'], where, out)
      const url = part['url']
      if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/i.test(url))
        out.push(`${where}.url is not http(s)`)
    } else if (part['type'] === 'image') {
      onlyKeys(part, ['type', 'mediaType', 'data'], where, out)
      if (typeof part['mediaType'] !== 'string' || !part['mediaType'].startsWith('image/'))
        out.push(`${where}.mediaType is not an image type`)
      if (typeof part['data'] !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(part['data']))
        out.push(`${where}.data is not base64`)
    } else out.push(`${where}.type is unknown`)
    return undefined
  })
}

function assistant(turn: Dict, at: string, out: string[]): string[] {
  const keys = ['role', 'text', 'thinking', 'toolCalls', 'usage', 'stopReason', 'items', 'warnings']
  onlyKeys(turn, keys, at, out)
  if (typeof turn['text'] !== 'string') out.push(`${at}.text is not a string`)
  if (turn['thinking'] !== undefined && typeof turn['thinking'] !== 'string')
    out.push(`${at}.thinking is not a string`)
  if (!STOP_REASONS.has(turn['stopReason'] as string)) out.push(`${at}.stopReason is unknown`)
  const usage = turn['usage']
  if (!isPlain(usage) || !isCount(usage['inputTokens']) || !isCount(usage['outputTokens'])) {
    out.push(`${at}.usage lacks token counts`)
  } else {
    onlyKeys(
      usage,
      ['inputTokens', 'outputTokens', 'reasoningTokens', 'cacheReadTokens', 'cacheWriteTokens'],
      `${at}.usage`,
      out,
    )
    for (const key of ['reasoningTokens', 'cacheReadTokens', 'cacheWriteTokens']) {
      if (usage[key] !== undefined && !isCount(usage[key]))
        out.push(`${at}.usage.${key} is not a count`)
    }
  }
  const warnings = turn['warnings']
  if (
    warnings !== undefined &&
    (!Array.isArray(warnings) || !warnings.every((w) => typeof w === 'string'))
  )
    out.push(`${at}.warnings is not a list of strings`)
  const items = turn['items']
  if (items !== undefined) {
    if (!isPlain(items)) out.push(`${at}.items is not an object`)
    else {
      onlyKeys(items, ['provider', 'model', 'thinkingMode', 'data', 'seal'], `${at}.items`, out)
      for (const key of ['provider', 'model', 'thinkingMode']) {
        if (typeof items[key] !== 'string' || items[key] === '')
          out.push(`${at}.items.${key} is empty`)
      }
      if (!Array.isArray(items['data']) || !isJson(items['data']))
        out.push(`${at}.items.data is not a JSON array`)
      if (items['seal'] !== undefined && typeof items['seal'] !== 'string')
        out.push(`${at}.items.seal is not a string`)
    }
  }
  const toolCalls = turn['toolCalls']
  const ids: string[] = []
  if (toolCalls !== undefined) {
    if (!Array.isArray(toolCalls)) out.push(`${at}.toolCalls is not a list`)
    else {
      toolCalls.forEach((call: unknown, j) => {
        const where = `${at}.toolCalls[${j}]`
        if (!isPlain(call)) return out.push(`${where} is not an object`)
        onlyKeys(call, ['id', 'name', 'input'], where, out)
        if (typeof call['id'] !== 'string' || call['id'] === '') out.push(`${where}.id is empty`)
        else ids.push(call['id'])
        if (typeof call['name'] !== 'string' || call['name'] === '')
          out.push(`${where}.name is empty`)
        if (!('input' in call) || !isJson(call['input'])) out.push(`${where}.input is not JSON`)
        return undefined
      })
    }
  }
  if (turn['text'] === '' && toolCalls === undefined && items === undefined)
    out.push(`${at} is empty`)
  return ids
}

/** Everything wrong with call options an adapter received from the relay. */
export function optionsProblems(value: unknown): string[] {
  const out: string[] = []
  if (!isPlain(value)) return ['options is not a plain object']
  for (const key of Object.keys(value)) {
    if (!OPTION_KEYS.has(key)) out.push(`options has an unexpected member '${key}'`)
  }
  const { thinking, tools, toolChoice, maxTokens, temperature, responseFormat } = value
  if (thinking !== undefined && !LEVELS.has(thinking as string)) {
    if (
      !isPlain(thinking) ||
      !isPositive(thinking['budgetTokens']) ||
      Object.keys(thinking).length !== 1
    )
      out.push('options.thinking is not a level or a budget')
  }
  const names: string[] = []
  if (tools !== undefined) {
    if (!Array.isArray(tools)) out.push('options.tools is not a list')
    else {
      tools.forEach((tool: unknown, i) => {
        if (!isPlain(tool)) return out.push(`options.tools[${i}] is not an object`)
        onlyKeys(tool, ['name', 'description', 'parameters'], `options.tools[${i}]`, out)
        const name = tool['name']
        if (typeof name !== 'string' || !TOOL_NAME.test(name))
          out.push(`options.tools[${i}].name is not a tool name`)
        else if (names.includes(name)) out.push(`options.tools[${i}].name repeats`)
        else names.push(name)
        if (tool['description'] !== undefined && typeof tool['description'] !== 'string')
          out.push(`options.tools[${i}].description is not a string`)
        if (!isPlain(tool['parameters']) || !isJson(tool['parameters']))
          out.push(`options.tools[${i}].parameters is not a JSON object`)
        return undefined
      })
    }
  }
  if (toolChoice !== undefined) {
    if (isPlain(toolChoice)) {
      if (!names.includes(toolChoice['name'] as string))
        out.push('options.toolChoice names no tool')
    } else if (!CHOICES.has(toolChoice as string)) out.push('options.toolChoice is unknown')
    else if (toolChoice === 'required' && names.length === 0)
      out.push("options.toolChoice 'required' without tools")
  }
  if (maxTokens !== undefined && !isPositive(maxTokens))
    out.push('options.maxTokens is not a positive integer')
  if (
    temperature !== undefined &&
    (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 2))
  )
    out.push('options.temperature is not in [0, 2]')
  if (responseFormat !== undefined) {
    if (!isPlain(responseFormat) || responseFormat['type'] !== 'json')
      out.push('options.responseFormat is not json')
    else {
      const { schema, name } = responseFormat
      if (schema !== undefined && (!isPlain(schema) || !isJson(schema)))
        out.push('options.responseFormat.schema is not a JSON object')
      if (name !== undefined && (typeof name !== 'string' || !TOOL_NAME.test(name)))
        out.push('options.responseFormat.name is not a name')
    }
  }
  return out
}
