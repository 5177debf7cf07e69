/**
 * The check of which models a relay serves, from its `models` allowlist: `"provider/model"` ids
 * and `"provider/*"` for every model of a provider. Without a list, every model is served; an
 * empty list serves none. `/v1/chat`, `/v1/models` and each conversation's object use the same one.
 */
export function modelFilter(allowlist: readonly string[] | undefined): (id: string) => boolean {
  if (allowlist === undefined) return () => true
  const exact = new Set(allowlist.filter((id) => !id.endsWith('/*')))
  const providers = allowlist.filter((id) => id.endsWith('/*')).map((id) => id.slice(0, -1))
  return (id) => exact.has(id) || providers.some((prefix) => id.startsWith(prefix))
}
