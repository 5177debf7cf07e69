// The `thinkwire/openai-compatible/models` entry: the known servers (base URL, models, reasoning)
// and what a server's model supports, without `openai`, so a host can list the models (a relay's
// `/v1/models`) before a call loads the SDK. `thinkwire/openai-compatible` exports them too.
export { compatibleCapabilities } from './models.ts'
export { presets, type CompatiblePreset, type PresetName } from './presets.ts'
