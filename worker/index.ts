import { createHandler } from './handler.ts'

export { ConversationObject } from './conversation-object.ts'
export { RateLimiterObject } from './rate-limiter.ts'

const handle = createHandler()

/**
 * The thinkwire relay as a Cloudflare Worker: `POST /v1/chat` and `GET /v1/models` from the
 * providers whose keys are set (the offline mock model when none is), with client tokens or
 * end-user JWTs (closed to everyone when neither is set, unless `ALLOW_ANONYMOUS`), CORS, sealing
 * and per-client rate limits from the settings in wrangler.toml and its secrets. Every other path
 * serves the demo's static assets.
 */
export default {
  fetch(request, env, ctx) {
    return handle(request, env, ctx)
  },
} satisfies ExportedHandler<Env>
