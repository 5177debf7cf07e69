import type { Adapter } from './adapter.ts'
import type { Capabilities } from './capabilities.ts'
import { ThinkwireError } from './errors.ts'

/**
 * Builds the adapter of one model of a provider. A factory made by a provider module
 * (`createAnthropic(...)`, ...) also lists that provider's current models in `models`: the
 * registry advertises them, and still resolves any other model id.
 */
export type AdapterFactory = ((model: string) => Adapter) & {
  readonly models?: readonly string[] | undefined
}

/**
 * How a registry serves one provider:
 * - a factory: any model id resolves, and the factory's own `models` (if any) are advertised;
 * - `{ create, models }`: only the listed models resolve and are advertised;
 * - an adapter, or a list of adapters: exactly their models.
 */
export type ProviderEntry =
  | AdapterFactory
  | { create: AdapterFactory; models?: readonly string[] | undefined }
  | Adapter
  | readonly Adapter[]

/** A model a registry serves, with what its adapter says it supports. */
export type RegistryModel = {
  /** `"provider/model"`, the id clients ask for. */
  id: string
  provider: string
  model: string
} & Partial<Capabilities>

/** Resolves `"provider/model"` ids to adapters. */
export type Registry = {
  /** Provider names, in the order they were given. */
  readonly providers: readonly string[]
  /**
   * The adapter for `"provider/model"`. Throws an `invalid-request` `ThinkwireError` with status
   * 404 that names the unknown provider or model and lists the known ones.
   */
  resolve(id: string): Adapter
  /** The models this registry advertises, with their adapters' capabilities. */
  models(): RegistryModel[]
}

type Resolved = {
  create: (model: string) => Adapter
  /** Only these resolve, when set. */
  only: ReadonlySet<string> | undefined
  advertised: readonly string[]
}

/** Adapters kept per provider: model ids may come from clients, so the cache is bounded. */
const CACHED_ADAPTERS = 64

/**
 * Creates a registry from provider entries. Each model's adapter is built once and kept (up to
 * 64 per provider), so a factory runs once per model, not once per request; build the provider's
 * SDK client once outside the factory (as `createAnthropic(...)` and the others do) so that every
 * model shares it.
 *
 * @example
 * ```ts
 * const registry = createRegistry({
 *   anthropic: createAnthropic({ apiKey }),
 *   mock: { create: (model) => mock({ model }), models: ['echo'] },
 * })
 * const adapter = registry.resolve('anthropic/claude-haiku-4-5')
 * ```
 */
export function createRegistry(entries: { readonly [provider: string]: ProviderEntry }): Registry {
  const table = new Map<string, Resolved>()
  for (const name of Object.keys(entries)) {
    if (name === '' || name.includes('/')) {
      throw new TypeError(`createRegistry: provider name '${name}' must be non-empty without '/'`)
    }
    table.set(name, normalize(entries[name]!))
  }
  const providers = [...table.keys()]

  return {
    providers,
    resolve(id) {
      const slash = id.indexOf('/')
      if (slash <= 0 || slash === id.length - 1) {
        throw notFound(`Model id '${clip(id)}' must be 'provider/model'`)
      }
      const provider = id.slice(0, slash)
      const model = id.slice(slash + 1)
      const entry = table.get(provider)
      if (entry === undefined) {
        const known = providers.length === 0 ? 'none' : providers.join(', ')
        throw notFound(`Unknown provider '${clip(provider)}' in '${clip(id)}'; known: ${known}`)
      }
      if (entry.only !== undefined && !entry.only.has(model)) {
        const known = entry.advertised.map((m) => `${provider}/${m}`).join(', ')
        throw notFound(`Unknown model '${clip(model)}' of '${provider}'; known: ${known}`)
      }
      return entry.create(model)
    },
    models() {
      const out: RegistryModel[] = []
      for (const [provider, entry] of table) {
        for (const model of entry.advertised) {
          out.push({
            id: `${provider}/${model}`,
            provider,
            model,
            ...entry.create(model).capabilities,
          })
        }
      }
      return out
    },
  }
}

function normalize(entry: ProviderEntry): Resolved {
  if (typeof entry === 'function') {
    return { create: cached(entry), only: undefined, advertised: entry.models ?? [] }
  }
  if (isAdapterList(entry)) {
    const byModel = new Map(entry.map((adapter) => [adapter.model, adapter]))
    return {
      create: (model) => byModel.get(model)!,
      only: new Set(byModel.keys()),
      advertised: [...byModel.keys()],
    }
  }
  if (isAdapter(entry)) {
    return { create: () => entry, only: new Set([entry.model]), advertised: [entry.model] }
  }
  const models = entry.models ?? entry.create.models ?? []
  return {
    create: cached(entry.create),
    only: entry.models === undefined ? undefined : new Set(entry.models),
    advertised: models,
  }
}

/** The factory, run once per model: the adapters of the last 64 models asked for are kept. */
function cached(create: (model: string) => Adapter): (model: string) => Adapter {
  const adapters = new Map<string, Adapter>()
  return (model) => {
    let adapter = adapters.get(model)
    if (adapter !== undefined) return adapter
    adapter = create(model)
    if (adapters.size >= CACHED_ADAPTERS) adapters.delete(adapters.keys().next().value!)
    adapters.set(model, adapter)
    return adapter
  }
}

function isAdapterList(entry: ProviderEntry): entry is readonly Adapter[] {
  return Array.isArray(entry)
}

function isAdapter(entry: ProviderEntry): entry is Adapter {
  return typeof entry === 'object' && 'stream' in entry && typeof entry.stream === 'function'
}

function notFound(message: string): ThinkwireError {
  return new ThinkwireError({ kind: 'invalid-request', message, status: 404 })
}

/** Client input echoed in a message stays short. */
function clip(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value
}
