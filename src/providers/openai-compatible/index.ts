export {
  createOpenAICompatible,
  openaiCompatible,
  type OpenAICompatibleOptions,
  type OpenAICompatibleSettings,
} from './adapter.ts'
export {
  compatibleCapabilities,
  type CompatibleModel,
  type CompatibleModelRow,
  type CompatibleModels,
  type OffPeak,
} from './models.ts'
export {
  deepseek,
  fireworks,
  groq,
  lmstudio,
  mistral,
  ollama,
  openaiChat,
  openrouter,
  together,
  vllm,
  xai,
  type PresetAdapterOptions,
  type PresetHelper,
  type PresetSettings,
} from './preset-adapters.ts'
export { presets, type CompatiblePreset, type PresetName } from './presets.ts'
export type {
  CompatibleReasoning,
  EffortLevels,
  ReasoningField,
  ThinkingControl,
} from './reasoning.ts'
export {
  createThinkTagSplitter,
  type ThinkTagSplitter,
  type ThinkTagSplitterOptions,
} from './think-tags.ts'
