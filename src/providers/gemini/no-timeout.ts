/**
 * Node's built-in fetch (undici) gives up on a response after 300 s without headers or between
 * body chunks, which would cut a long think. `@google/genai` lifts both limits when it uses the
 * global fetch itself; the adapter hands it a fetch of its own, so it lifts them in the same way:
 * a per-request dispatcher that forwards to Node's global one with both timeouts off. Elsewhere
 * (Workers, browsers) there is no such limit and this returns `init` unchanged.
 */

type Dispatcher = { dispatch(options: object, handler: unknown): boolean }

const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1')

function globalDispatcher(): Dispatcher | undefined {
  const holder = globalThis as { [GLOBAL_DISPATCHER]?: unknown }
  // Node sets it up lazily, when its fetch classes are first touched.
  if (holder[GLOBAL_DISPATCHER] === undefined) Reflect.construct(Headers, [])
  const found = holder[GLOBAL_DISPATCHER]
  return typeof found === 'object' && found !== null && 'dispatch' in found
    ? (found as Dispatcher)
    : undefined
}

const noTimeouts: Dispatcher = {
  dispatch(options, handler) {
    const target = globalDispatcher()
    if (target === undefined) throw new Error('Node fetch has no global dispatcher')
    return target.dispatch({ ...options, headersTimeout: 0, bodyTimeout: 0 }, handler)
  },
}

/** `init` with Node's fetch timeouts lifted, when running on Node's global fetch. */
export function withoutNodeTimeouts(init: RequestInit | undefined): RequestInit | undefined {
  const isNode =
    typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions
      ?.node === 'string'
  if (!isNode || globalDispatcher() === undefined) return init
  return { ...init, dispatcher: noTimeouts } as RequestInit
}
