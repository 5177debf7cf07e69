import { describe, Invalid, isRecord, type JsonRecord } from './validate-json.ts'
import { given } from './request-parts.ts'

/**
 * What every dialect does with a request before reading it as its own: the body is an object, and
 * each of its top-level fields one of the dialect's API; a fault becomes the refusal.
 */

/** A request a dialect refused, in its own terms. */
export type Refusal = {
  ok: false
  /** The field at fault as the dialect names it (`messages[3].content[1]`); none for the body. */
  field?: string | undefined
  /** Starts with the field's path, as the relay's own validation messages do. */
  message: string
  /** OpenAI's `code`, when one more precise than the status's applies (`unknown_parameter`). */
  code?: string | undefined
}

/** A fault that OpenAI's errors give a `code` of its own. */
export class CodedInvalid extends Invalid {
  readonly code: string

  constructor(field: string, problem: string, code: string) {
    super(field, problem)
    this.code = code
  }
}

/**
 * What the relay does with a top-level field of a dialect's request: maps it, accepts and ignores
 * it, or refuses it when it is set.
 */
export type FieldUse = 'mapped' | 'ignored' | 'refused'

/** A dialect's top-level fields, listed by what the relay does with each. */
export type FieldGroups = { readonly [Use in FieldUse]?: readonly string[] }

/**
 * The {@link RequestApi.fields} of fields listed by use. A field listed twice is a mistake in the
 * dialect's table, thrown when its module loads.
 */
export function fieldUses(groups: FieldGroups): Readonly<Record<string, FieldUse>> {
  const fields: Record<string, FieldUse> = {}
  for (const use of ['mapped', 'ignored', 'refused'] as const) {
    for (const key of groups[use] ?? []) {
      if (Object.hasOwn(fields, key)) throw new TypeError(`fieldUses: ${key} is listed twice`)
      fields[key] = use
    }
  }
  return fields
}

/** A dialect's API, as its request translator checks a request's top-level fields against it. */
export type RequestApi = {
  /** Its name, as a refusal says it: `the Responses API`. */
  name: string
  /** Every top-level field of a request, and what the relay does with it. */
  fields: Readonly<Record<string, FieldUse>>
  /** Throws for a `refused` field that is set; its value is the one `given` reads. */
  refuse?: ((key: string, value: unknown) => void) | undefined
  /** What a body that is not an object is refused as. @defaultValue none (the body) */
  bodyField?: string | undefined
}

/**
 * A dialect's request translator. A body must be an object whose every top-level field `api` has:
 * any other field is refused (`unknown_parameter`), so that a client cannot reach a key, a base URL
 * or a provider option and a misspelt field does not pass silently. `translate` then reads it,
 * throwing `Invalid` at the first fault: the refusal names its field, with its code for a
 * {@link CodedInvalid}. Never throws on a parsed JSON body.
 */
export function requestTranslator<T>(
  api: RequestApi,
  translate: (body: JsonRecord) => T,
): (body: unknown) => T | Refusal {
  return (body) => {
    if (!isRecord(body)) {
      const message = `body must be a JSON object, got ${describe(body)}`
      return { ok: false, field: api.bodyField, message }
    }
    try {
      checkFields(body, api)
      return translate(body)
    } catch (error) {
      if (!(error instanceof Invalid)) throw error
      const refusal: Refusal = { ok: false, field: error.field, message: error.message }
      if (error instanceof CodedInvalid) refusal.code = error.code
      return refusal
    }
  }
}

function checkFields(body: JsonRecord, api: RequestApi): void {
  for (const key of Object.keys(body)) {
    if (!Object.hasOwn(api.fields, key)) {
      throw new CodedInvalid(
        describe(key).slice(1, -1),
        `is not a field of ${api.name} (a relay client picks no key, base URL or provider option)`,
        'unknown_parameter',
      )
    }
    if (api.fields[key] === 'refused') api.refuse?.(key, given(body, key))
  }
}
