export { openaiCompatible, type OpenAICompatibleOptions } from './adapter.ts'
export {
  deepseek,
  fireworks,
  groq,
  lmstudio,
  mistral,
  ollama,
  openrouter,
  together,
  vllm,
  xai,
  type PresetAdapterOptions,
} from './preset-adapters.ts'
export { presets, type CompatiblePreset, type PresetName } from './presets.ts'
export type {
  CompatibleModel,
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
