// The `thinkwire/openai/models` entry: what thinkwire knows of OpenAI's models (the current ones,
// what each supports and costs) without `openai`, so a host can list them (a relay's
// `/v1/models`) before a call loads the SDK. `thinkwire/openai` exports them too.
export { openaiCapabilities, openaiModels } from './models.ts'
