/** Reads the Worker's string settings (vars and secrets). Messages name the setting, never its value. */

/** A comma- or whitespace-separated list, without empty entries. */
export function list(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter((item) => item !== '')
}

/** A whole number of at least 0, or `fallback` when unset. */
export function count(env: Env, name: keyof Env, fallback: number): number {
  const value = setting(env, name)
  if (value === undefined || value.trim() === '') return fallback
  const parsed = Number(value)
  if (!Number.isSafeInteger(parsed) || parsed < 0) {
    throw new TypeError(`${name} must be a whole number of at least 0`)
  }
  return parsed
}

/** A string setting by name, also one that is not declared in `Env` (e.g. `GROQ_API_KEY`). */
export function setting(env: Env, name: string): string | undefined {
  const value: unknown = Reflect.get(env, name)
  return typeof value === 'string' ? value : undefined
}
