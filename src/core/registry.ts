import { findModel, models as knownModels, type ModelInfo } from '../models.ts'
import type { Adapter } from './adapter.ts'
import { ThinkwireError } from './errors.ts'

/** Builds the adapter of one model of a provider. */
export type AdapterFactory = (model: string) => Adapter

/**
 * How a registry serves one provider:
 * - a factory: any model id resolves, and the models listed for the provider in `src/models.ts`
 *   are advertised;
 * - `{ create, models }`: only the listed models resolve and are advertised;
 * - an adapter, or a list of adapters: exactly their models.
 */
export type ProviderEntry =
  | AdapterFactory
  | { create: AdapterFactory; models?: readonly string[] | undefined }
  | Adapter
  | readonly Adapter[]

/** A model a registry serves, with what the capability table knows about it. */
export type RegistryModel = {
  /** `"provider/model"`, the id clients ask for. */
  id: string
  provider: string
  model: string
} & Partial<Omit<ModelInfo, 'provider' | 'id' | 'rejects'>>

/** Resolves `"provider/model"` ids to adapters. */
export type Registry = {
  /** Provider names, in the order they were given. */
  readonly providers: readonly string[]
  /**
   * The adapter for `"provider/model"`. Throws an `invalid-request` `ThinkwireError` with status
   * 404 that names the unknown provider or model and lists the known ones.
   */
  resolve(id: string): Adapter
  /** The models this registry advertises. */
  models(): RegistryModel[]
}

type Resolved = {
  create: AdapterFactory
  /** Only these resolve, when set. */
  only: ReadonlySet<string> | undefined
  advertised: readonly string[]
}

const MARKER = Symbol.for('thinkwire.registry')

/**
 * Creates a registry from provider entries. A factory is called on every `resolve`: cache inside
 * it when building an adapter is costly.
 *
 * @example
 * ```ts
 * const registry = createRegistry({
 *   anthropic: (model) => anthropic({ apiKey, model }),
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
    table.set(name, normalize(name, entries[name]!))
  }
  const providers = [...table.keys()]

  const registry: Registry & { [MARKER]: true } = {
    [MARKER]: true,
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
        for (const model of entry.advertised) out.push(describeModel(provider, model))
      }
      return out
    },
  }
  return registry
}

/** True for a value made by {@link createRegistry}. */
export function isRegistry(value: unknown): value is Registry {
  return typeof value === 'object' && value !== null && MARKER in value
}

/** A served model with its capabilities from `src/models.ts`, when the table has a row for it. */
function describeModel(provider: string, model: string): RegistryModel {
  const out: RegistryModel = { id: `${provider}/${model}`, provider, model }
  const row = findModel(provider, model)
  if (row === undefined) return out
  out.thinking = row.thinking
  out.tools = row.tools
  out.json = row.json
  out.contextTokens = row.contextTokens
  out.maxOutputTokens = row.maxOutputTokens
  return out
}

function normalize(name: string, entry: ProviderEntry): Resolved {
  if (typeof entry === 'function') {
    return { create: entry, only: undefined, advertised: tableModels(name) }
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
  if (entry.models === undefined) {
    return { create: entry.create, only: undefined, advertised: tableModels(name) }
  }
  return { create: entry.create, only: new Set(entry.models), advertised: [...entry.models] }
}

function isAdapterList(entry: ProviderEntry): entry is readonly Adapter[] {
  return Array.isArray(entry)
}

function isAdapter(entry: ProviderEntry): entry is Adapter {
  return typeof entry === 'object' && 'stream' in entry && typeof entry.stream === 'function'
}

/** Exact ids (not `prefix*` family rows) the capability table lists for a provider. */
function tableModels(provider: string): string[] {
  return knownModels
    .filter((row) => row.provider === provider && !row.id.endsWith('*'))
    .map((row) => row.id)
}

function notFound(message: string): ThinkwireError {
  return new ThinkwireError({ kind: 'invalid-request', message, status: 404 })
}

/** Client input echoed in a message stays short. */
function clip(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value
}
