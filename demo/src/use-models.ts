import { useEffect, useState } from 'react'
import type { ThinkingSupport } from '../../src/index.ts'
import { THINKING_LEVELS, type ThinkingLevel } from './storage.ts'

/** A model the relay serves, as `GET /v1/models` lists it (with the capabilities the demo uses). */
export type ModelEntry = { id: string; thinking: ThinkingSupport | undefined }

/** What the relay's model list came to. */
export type Models = {
  /** Undefined while loading (or when it failed). */
  models: ModelEntry[] | undefined
  /** Why the list could not be loaded. */
  error: string | undefined
  /** The relay asks for a bearer token (401). */
  needsToken: boolean
  /** What the relay said with its 401 (a closed relay says how to open it). */
  tokenReason?: string | undefined
  /** The token this answers: another than the one in use while the list is loaded again. */
  forToken: string
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A model's thinking support as the relay reports it, or undefined when it does not say. */
function thinkingOf(value: unknown): ThinkingSupport | undefined {
  if (!isRecord(value)) return undefined
  const canDisable = value['canDisable'] === true
  if (value['mode'] === 'none') return { mode: 'none' }
  if (value['mode'] === 'budget') {
    const [min, max] = [value['min'], value['max']]
    if (typeof min !== 'number' || typeof max !== 'number') return undefined
    return { mode: 'budget', min, max, canDisable }
  }
  const levels = value['levels']
  if (value['mode'] !== 'effort' || !Array.isArray(levels)) return undefined
  return { mode: 'effort', levels: levels.filter((l) => typeof l === 'string'), canDisable }
}

/**
 * The thinking levels to offer for a model: none for one that cannot think, only the levels it
 * takes (of those thinkwire names), and `off` only when thinking can be turned off. A model whose
 * support is unknown gets none: it is called with its default.
 */
export function thinkingLevels(model: ModelEntry | undefined): ThinkingLevel[] {
  const support = model?.thinking
  if (support === undefined || support.mode === 'none') return []
  const takes = (level: ThinkingLevel) =>
    level !== 'off' &&
    (support.mode === 'effort' ? support.levels.includes(level) : level !== 'max')
  const levels = THINKING_LEVELS.filter(takes)
  return support.canDisable ? ['off', ...levels] : levels
}

/** The relay's models, loaded again whenever the token changes. */
export function useModels(token: string): Models {
  const [state, setState] = useState<Models>({
    models: undefined,
    error: undefined,
    needsToken: false,
    forToken: token,
  })
  useEffect(() => {
    const controller = new AbortController()
    const headers: HeadersInit = token === '' ? {} : { authorization: `Bearer ${token}` }
    fetch('/v1/models', { signal: controller.signal, headers })
      .then(async (response) => {
        if (response.status === 401) {
          const refusal: unknown = await response.json().catch(() => undefined)
          const error = isRecord(refusal) ? refusal['error'] : undefined
          const message = isRecord(error) ? error['message'] : undefined
          const tokenReason = typeof message === 'string' ? message : undefined
          setState({
            models: undefined,
            error: undefined,
            needsToken: true,
            tokenReason,
            forToken: token,
          })
          return
        }
        const body: unknown = await response.json()
        const list = isRecord(body) ? body['models'] : undefined
        if (!response.ok || !Array.isArray(list)) throw new Error(`HTTP ${response.status}`)
        const models = list.flatMap((m): ModelEntry[] =>
          isRecord(m) && typeof m['id'] === 'string'
            ? [{ id: m['id'], thinking: thinkingOf(m['thinking']) }]
            : [],
        )
        setState({ models, error: undefined, needsToken: false, forToken: token })
      })
      .catch((cause: unknown) => {
        if (controller.signal.aborted) return
        const reason = cause instanceof Error ? cause.message : String(cause)
        setState({
          models: undefined,
          error: `Could not load the model list (${reason}).`,
          needsToken: false,
          forToken: token,
        })
      })
    return () => controller.abort()
  }, [token])
  return state
}
