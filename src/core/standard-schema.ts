/**
 * The Standard Schema interface (zod 4, valibot and arktype implement it), declared here so that
 * thinkwire needs none of them. See https://standardschema.dev.
 */
export type StandardSchemaV1<Input = unknown, Output = Input> = {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>
    readonly types?: { readonly input: Input; readonly output: Output } | undefined
    /** Standard JSON Schema, when the library implements it (zod 4.2+, for example). */
    readonly jsonSchema?:
      | {
          readonly input?:
            | ((options: { readonly target: string }) => Record<string, unknown>)
            | undefined
          readonly output: (options: { readonly target: string }) => Record<string, unknown>
        }
      | undefined
  }
}

/** The result of `validate`: a value, or issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly StandardIssue[] }

/** One validation problem, with the path to the value at fault. */
export type StandardIssue = {
  readonly message: string
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
}

/** The output type of a Standard Schema. */
export type InferOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output']

/** `items[2].price`-style path of an issue (`(root)` for the value itself). */
export function formatIssuePath(issue: StandardIssue): string {
  let out = ''
  for (const segment of issue.path ?? []) {
    const key = typeof segment === 'object' ? segment.key : segment
    if (typeof key === 'number') out += `[${key}]`
    else out += out === '' ? String(key) : `.${String(key)}`
  }
  return out === '' ? '(root)' : out
}

/** True for a Standard Schema (an object with a `~standard` member). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return typeof value === 'object' && value !== null && '~standard' in value
}
