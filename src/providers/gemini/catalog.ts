// The `thinkwire/gemini/models` entry: what thinkwire knows of Gemini's models (the current ones,
// what each supports and costs) without `@google/genai`, so a host can list them (a relay's
// `/v1/models`) before a call loads the SDK. `thinkwire/gemini` exports them too.
export { geminiCapabilities, geminiModels } from './models.ts'
// What a model supports on the Interactions API (`geminiInteractions()`): a thinking level on
// every model that thinks.
export { geminiInteractionsCapabilities } from './interactions/models.ts'
