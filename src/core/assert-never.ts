/** Ends an exhaustive `switch`: a new variant left unhandled fails the build, and at run time throws. */
export function assertNever(value: never): never {
  // `Object()` boxes a primitive and keeps an object: both can be asked for a `type`.
  const seen: { type?: unknown } = Object(value)
  throw new TypeError(`Unexpected variant: ${String(seen.type ?? value)}`)
}
