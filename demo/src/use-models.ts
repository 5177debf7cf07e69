import { useEffect, useState } from 'react'

/** A model the relay serves, as `GET /v1/models` lists it. */
export type ModelEntry = { id: string; thinking?: { mode: string } | undefined }

/** The relay's models: undefined while loading, or an error message. */
export function useModels(): { models: ModelEntry[] | undefined; error: string | undefined } {
  const [models, setModels] = useState<ModelEntry[]>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    const controller = new AbortController()
    fetch('/v1/models', { signal: controller.signal })
      .then(async (response) => {
        const body: unknown = await response.json()
        const list =
          typeof body === 'object' && body !== null && 'models' in body ? body.models : undefined
        if (!response.ok || !Array.isArray(list)) throw new Error(`HTTP ${response.status}`)
        setModels(
          list.filter(
            (m): m is ModelEntry => typeof m === 'object' && m !== null && typeof m.id === 'string',
          ),
        )
      })
      .catch((cause: unknown) => {
        if (controller.signal.aborted) return
        setError(
          `Could not load the model list (${cause instanceof Error ? cause.message : cause}).`,
        )
      })
    return () => controller.abort()
  }, [])
  return { models, error }
}
