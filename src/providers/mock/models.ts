import type { Capabilities } from '../../core/capabilities.ts'

/** The models a relay serves as `mock/<id>` when it has no provider: `mock/echo`. */
export const mockModelIds: readonly string[] = ['echo']

/** What every mock model supports (it takes any option, and says so like a large model). */
export const mockCapabilities: Capabilities = {
  thinking: { mode: 'effort', levels: ['low', 'medium', 'high'], canDisable: true },
  tools: true,
  json: true,
  contextTokens: 200_000,
  maxOutputTokens: 64_000,
}
