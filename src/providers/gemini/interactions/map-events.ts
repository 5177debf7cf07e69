import { isRecord, type JsonRecord } from '../../../kit/json.ts'
import { createDeltaBatch, type Deltas } from '../delta-batch.ts'
import { annotationsOf, type Citation } from './map-sources.ts'
import { streamError } from './map-error.ts'

/** Everything a finished stream said, for the `done` turn. */
export type InteractionSummary = {
  /**
   * The turn's steps in the order of their `index`, each as the stream built it: thought steps with
   * their signature and summary, model output with its text and annotations, complete function
   * calls with parsed arguments, server tool steps. A function call that was dropped is left out.
   */
  steps: JsonRecord[]
  /** How many tool calls the turn made (were emitted). */
  toolCallCount: number
  /** True when `interaction.completed` came. */
  completed: boolean
  /** The interaction's last status (`interaction.completed`'s, else the last update's). */
  status: string | undefined
  /** The last usage record seen (`interaction.completed`'s wins). */
  usage: JsonRecord | undefined
  /** The interaction's id, when the server gave a non-empty one (it stored the interaction). */
  interactionId: string | undefined
  /** The last continuation token: what resumes a `requires_continuation` answer. */
  continuationToken: string | undefined
  /** What the text annotations cite, for the turn's sources. */
  citations: Citation[]
  /** Function calls whose arguments were not JSON when their step stopped. */
  malformedCalls: string[]
  /** Function calls whose step never stopped (dropped by `dropOpenCalls`). */
  cutCalls: string[]
  /** The messages of model output steps that carried an `error`. */
  stepErrors: string[]
}

/** Maps one stream's events; see {@link createEventMapper}. */
export type EventMapper = {
  /** The deltas of one parsed event (`name` is its SSE `event:` line, used when the data has no `event_type`). */
  map(event: unknown, name?: string | undefined): Deltas
  /** True once `interaction.completed` came: the stream's terminal event. */
  readonly ended: boolean
  /** The status so far. */
  readonly status: string | undefined
  /** Closes the function calls whose step never stopped, as if it had: their deltas. */
  closeOpenCalls(): Deltas
  /** Drops the function calls whose step never stopped: never emitted, not kept. */
  dropOpenCalls(): void
  /** What the stream said, once it is over. */
  summary(): InteractionSummary
}

/** A text being written: the content item it goes to, and the text so far. */
type Written = { item: JsonRecord; value: string }

type OpenStep = {
  index: number
  /** The step as it is kept (the mapper owns it). */
  step: JsonRecord
  /** The text item of a model output, or the summary text of a thought, being written. */
  text: Written | undefined
  /** A function call's argument fragments, joined. */
  args: string
  stopped: boolean
  /** A function call left out: its arguments were not JSON, or its step never stopped. */
  dropped: boolean
}

/**
 * Maps the Interactions API's streamed events to deltas and assembles the turn's steps for replay.
 * Steps come as `step.start` (the step's type and what it already holds: a function call's id and
 * name, a thought's signature, the first content), `step.delta` (text, thought summary, thought
 * signature, argument fragments, annotations, a server tool's call or result) and `step.stop`,
 * each naming its step by `index`; lifecycle events around them carry the status and the usage, and
 * `interaction.completed` ends the stream. An `error` event throws.
 *
 * Text deltas of a model output stream as `text`, thought summaries as `thinking`; a function call
 * is emitted whole when its step stops, its arguments parsed from the fragments. A thought
 * signature stays on the thought step it came with, so the next request sends every signature back
 * where it was. An empty `signature` is not kept. `makeCallId(n)` names the `n`-th call of the turn
 * when the stream gave it no id, and that id is written onto its step, so its result finds it.
 *
 * Synchronous: per event, the deltas and nothing else. Streamed text is joined in a string and
 * written to its content item once, when the run of text ends.
 */
export function createEventMapper(
  provider: string,
  makeCallId: (index: number) => string,
): EventMapper {
  const open = new Map<number, OpenStep>()
  const order: OpenStep[] = []
  const citations: Citation[] = []
  const stepErrors: string[] = []
  let toolCallCount = 0
  /** Function call steps started, for the ids of those that came without one. */
  let callSteps = 0
  let status: string | undefined
  let usage: JsonRecord | undefined
  let interactionId: string | undefined
  let continuationToken: string | undefined
  let ended = false
  const { emit, collect } = createDeltaBatch()

  /** Writes a run of text to its item; the next text starts from what the item holds. */
  function flush(state: OpenStep): void {
    if (state.text === undefined) return
    state.text.item['text'] = state.text.value
    state.text = undefined
  }

  function create(index: number, raw: JsonRecord): OpenStep {
    const step: JsonRecord = { ...raw }
    if (step['signature'] === '') delete step['signature']
    const state: OpenStep = {
      index,
      step,
      text: undefined,
      args: '',
      stopped: false,
      dropped: false,
    }
    const before = open.get(index)
    if (before !== undefined) order.splice(order.indexOf(before), 1)
    open.set(index, state)
    order.push(state)
    return state
  }

  function startStep(index: number, raw: unknown): void {
    if (!isRecord(raw) || typeof raw['type'] !== 'string') return
    const state = create(index, raw)
    const { step } = state
    switch (step['type']) {
      case 'model_output':
        step['content'] = copies(step['content'])
        for (const item of step['content'] as JsonRecord[]) readContent(state, item, 'text')
        break
      case 'thought':
        if (step['summary'] !== undefined) step['summary'] = copies(step['summary'])
        for (const item of (step['summary'] ?? []) as JsonRecord[])
          readContent(state, item, 'thinking')
        break
      case 'function_call':
        if (typeof step['id'] !== 'string' || step['id'] === '') step['id'] = makeCallId(callSteps)
        callSteps++
        break
    }
  }

  /** A content item already in a step: its text is emitted, and a text item takes what follows. */
  function readContent(state: OpenStep, item: JsonRecord, as: 'text' | 'thinking'): void {
    flush(state)
    if (item['type'] !== 'text' || typeof item['text'] !== 'string') return
    if (item['text'] !== '') emit({ type: as, text: item['text'] })
    state.text = { item, value: item['text'] }
    if (as === 'text') cite(state.text, item['annotations'])
  }

  /** Appends text to the step's text item, opening one when there is none. */
  function write(state: OpenStep, list: 'content' | 'summary', value: string): void {
    if (state.text === undefined) {
      const item: JsonRecord = { type: 'text', text: '' }
      const items = Array.isArray(state.step[list]) ? (state.step[list] as unknown[]) : []
      items.push(item)
      state.step[list] = items
      state.text = { item, value: '' }
    }
    state.text.value += value
  }

  /** Keeps `item` after the step's other content, ending the run of text before it. */
  function append(state: OpenStep, list: 'content' | 'summary', item: JsonRecord): void {
    flush(state)
    const items = Array.isArray(state.step[list]) ? (state.step[list] as unknown[]) : []
    items.push(item)
    state.step[list] = items
  }

  function cite(written: Written | undefined, annotations: unknown): void {
    for (const annotation of annotationsOf(annotations))
      citations.push({ annotation, text: () => written?.value ?? '' })
  }

  function readDelta(index: number, raw: unknown): void {
    if (!isRecord(raw)) return
    const type = raw['type']
    let state = open.get(index)
    // A delta whose step.start never came: text and thoughts still count.
    if (state === undefined) {
      if (type === 'text' || type === 'text_annotation_delta')
        state = create(index, { type: 'model_output', content: [] })
      else if (type === 'thought_summary' || type === 'thought_signature')
        state = create(index, { type: 'thought' })
      else return
    }
    const { step } = state
    switch (type) {
      case 'text': {
        const value = raw['text']
        if (step['type'] !== 'model_output' || typeof value !== 'string') return
        write(state, 'content', value)
        if (value !== '') emit({ type: 'text', text: value })
        return
      }
      case 'text_annotation_delta': {
        const annotations = annotationsOf(raw['annotations'])
        if (annotations.length === 0) return
        // They annotate the text written so far (else the step's last text item).
        const target = state.text ?? lastText(step)
        if (target !== undefined)
          target.item['annotations'] = [
            ...annotationsOf(target.item['annotations']),
            ...annotations,
          ]
        cite(target, annotations)
        return
      }
      case 'thought_summary': {
        const content = raw['content']
        if (step['type'] !== 'thought' || !isRecord(content)) return
        if (content['type'] === 'text' && typeof content['text'] === 'string') {
          write(state, 'summary', content['text'])
          if (content['text'] !== '') emit({ type: 'thinking', text: content['text'] })
        } else append(state, 'summary', { ...content })
        return
      }
      case 'thought_signature': {
        const signature = raw['signature']
        // One signature per step: a later one replaces it, an empty one says nothing.
        if (typeof signature === 'string' && signature !== '') step['signature'] = signature
        return
      }
      case 'arguments_delta': {
        if (step['type'] !== 'function_call') return
        if (typeof raw['arguments'] === 'string') state.args += raw['arguments']
        return
      }
    }
    if (type === step['type']) {
      // A server tool's call or result: the delta holds the step's fields.
      for (const [key, value] of Object.entries(raw)) if (key !== 'type') step[key] = value
    } else if (step['type'] === 'model_output' && typeof type === 'string') {
      // Image, audio, document or video output: a content item of its own.
      append(state, 'content', { ...raw })
    }
  }

  function stopStep(index: number): void {
    const state = open.get(index)
    if (state === undefined || state.stopped) return
    state.stopped = true
    flush(state)
    const { step } = state
    if (step['type'] === 'function_call') closeCall(state)
    if (step['type'] === 'model_output' && isRecord(step['error'])) {
      const message = step['error']['message']
      stepErrors.push(typeof message === 'string' ? message : JSON.stringify(step['error']))
    }
  }

  function closeCall(state: OpenStep): void {
    const { step } = state
    let args: unknown = isRecord(step['arguments']) ? step['arguments'] : {}
    if (state.args !== '') {
      try {
        args = JSON.parse(state.args)
      } catch {
        state.dropped = true
        return
      }
    }
    // Arguments are an object; anything else is wrapped so nothing is lost.
    const input = isRecord(args) ? args : { value: args }
    step['arguments'] = input
    toolCallCount++
    const name = typeof step['name'] === 'string' ? step['name'] : ''
    emit({ type: 'tool-call', call: { id: String(step['id']), name, input } })
  }

  function readInteraction(interaction: unknown): void {
    if (!isRecord(interaction)) return
    if (typeof interaction['id'] === 'string' && interaction['id'] !== '')
      interactionId = interaction['id']
    readStatus(interaction)
  }

  function readStatus(record: JsonRecord): void {
    if (typeof record['status'] === 'string') status = record['status']
    if (isRecord(record['usage'])) usage = record['usage']
    if (typeof record['continuation_token'] === 'string' && record['continuation_token'] !== '')
      continuationToken = record['continuation_token']
  }

  function complete(interaction: unknown): void {
    readInteraction(interaction)
    ended = true
    // A completion that holds the steps the stream did not send as events: they count.
    const steps = isRecord(interaction) ? interaction['steps'] : undefined
    if (order.length > 0 || !Array.isArray(steps)) return
    steps.forEach((step, index) => {
      startStep(index, step)
      stopStep(index)
    })
  }

  function openCalls(): OpenStep[] {
    return order.filter((s) => !s.stopped && !s.dropped && s.step['type'] === 'function_call')
  }

  function readEvent(event: unknown, name: string | undefined): void {
    if (!isRecord(event)) return
    const type = typeof event['event_type'] === 'string' ? event['event_type'] : name
    const index = typeof event['index'] === 'number' ? event['index'] : -1
    switch (type) {
      case 'step.start':
        startStep(index, event['step'])
        break
      case 'step.delta':
        readDelta(index, event['delta'])
        if (isRecord(event['metadata']) && isRecord(event['metadata']['total_usage']))
          usage = event['metadata']['total_usage']
        break
      case 'step.stop':
        stopStep(index)
        if (isRecord(event['usage'])) usage = event['usage']
        break
      case 'interaction.created':
        readInteraction(event['interaction'])
        break
      case 'interaction.status_update':
        readStatus(event)
        break
      case 'interaction.completed':
        complete(event['interaction'])
        break
      case 'error':
        throw streamError(isRecord(event['error']) ? event['error'] : {}, provider)
    }
  }

  return {
    map: (event, name) => collect(() => readEvent(event, name)),
    get ended() {
      return ended
    },
    get status() {
      return status
    },
    closeOpenCalls() {
      return collect(() => {
        for (const state of openCalls()) stopStep(state.index)
      })
    },
    dropOpenCalls() {
      for (const state of openCalls()) state.dropped = true
    },
    summary() {
      for (const state of order) flush(state)
      const sorted = order.toSorted((a, b) => a.index - b.index)
      const calls = (dropped: boolean, stopped: boolean) =>
        sorted
          .filter((s) => s.step['type'] === 'function_call' && s.dropped === dropped)
          .filter((s) => s.stopped === stopped)
          .map((s) => (typeof s.step['name'] === 'string' ? s.step['name'] : ''))
      return {
        steps: sorted.filter((s) => !s.dropped).map((s) => s.step),
        completed: ended,
        toolCallCount,
        status,
        usage,
        interactionId,
        continuationToken,
        citations,
        malformedCalls: calls(true, true),
        cutCalls: calls(true, false),
        stepErrors,
      }
    },
  }
}

/** The last text item of a model output, as it is. */
function lastText(step: JsonRecord): Written | undefined {
  const content = step['content']
  const item = Array.isArray(content) ? content.findLast(isRecord) : undefined
  if (item === undefined || item['type'] !== 'text') return undefined
  return { item, value: typeof item['text'] === 'string' ? item['text'] : '' }
}

/** A list's records, each copied (the mapper writes into them). */
function copies(value: unknown): JsonRecord[] {
  return Array.isArray(value) ? value.filter(isRecord).map((item) => ({ ...item })) : []
}
