/**
 * The names the snippets of README.md and `docs/` take as given. Read only by the snippets' own
 * type check (`snippets.test.ts`), never by the project's: these globals exist nowhere else.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import type { ChatCompletionTool } from 'openai/resources/chat/completions'
import type { z as zod } from 'zod'
import type { Adapter, Conversation } from '../../src/index.ts'

declare global {
  /** Any adapter: the snippets' own model. */
  var adapter: Adapter
  var primary: Adapter
  var backup: Adapter
  var conversation: Conversation
  var z: typeof zod
  var render: (value: unknown) => void
  var showThinking: (text: string) => void
  var showAnswer: (text: string) => void
  var save: (value: unknown) => void
  var lookUp: (city: string) => string
  var apiKey: string
  var clientToken: string
  var clientIdSecret: string
  var currentSecret: string
  var previousSecret: string
  var relayToken: string
  var baseURL: string
  /** OpenAI function tools, as a client declares them. */
  var tools: ChatCompletionTool[]
  /** Any LangChain chat model class (the README's example uses Bedrock's). */
  var ChatBedrockConverse: new (fields: { model: string }) => BaseChatModel
  /** The app's way to get a fresh bearer token for the relay (a sign-in library's). */
  var getToken: () => Promise<string>
  /** An Auth0 SPA client (`createAuth0Client` of `@auth0/auth0-spa-js`), as far as the docs use it. */
  var auth0: { getTokenSilently(): Promise<string> }
  var runInBrowser: (name: string, input: unknown) => Promise<unknown>
  var load: () => Conversation | undefined
}
