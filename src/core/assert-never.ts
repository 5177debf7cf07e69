/** Ends an exhaustive `switch`: a new variant left unhandled fails the build, and at run time throws. */
export function assertNever(value: never): never {
  const seen: unknown = value
  const type =
    typeof seen === 'object' && seen !== null && 'type' in seen ? String(seen.type) : String(seen)
  throw new TypeError(`Unexpected variant: ${type}`)
}
