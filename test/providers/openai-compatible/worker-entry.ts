/**
 * A Worker that streams the recorded body it is POSTed through `openaiCompatible()` on the preset
 * and model its path names (`/deepseek/deepseek-reasoner`) and answers with the events as JSON:
 * proof that the adapter runs in workerd as it runs in Node.
 */
import type { Event } from '../../../src/core/events.ts'
import { openaiCompatible, presets } from '../../../src/providers/openai-compatible/index.ts'

export default {
  async fetch(request: Request): Promise<Response> {
    const [name = '', ...model] = new URL(request.url).pathname.slice(1).split('/')
    if (!Object.hasOwn(presets, name)) return new Response(`no preset ${name}`, { status: 404 })
    const recorded = await request.text()
    const adapter = openaiCompatible({
      ...presets[name as keyof typeof presets],
      model: model.join('/'),
      apiKey: 'sk-worker-key-0123456789',
      fetch: async () =>
        new Response(recorded, { headers: { 'content-type': 'text/event-stream' } }),
    })
    const events: Event[] = []
    for await (const event of adapter.stream({ turns: [{ role: 'user', content: 'Wetter?' }] }))
      events.push(event)
    return Response.json(events)
  },
}
