// The `thinkwire/anthropic/models` entry: what thinkwire knows of Anthropic's models (the current
// ones, what each supports and costs) without `@anthropic-ai/sdk`, so a host can list them (a
// relay's `/v1/models`) before a call loads the SDK. `thinkwire/anthropic` exports them too.
export { anthropicCapabilities, anthropicModels } from './models.ts'
