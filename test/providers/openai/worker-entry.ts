/**
 * A Worker that streams the recorded body it is POSTed through `openai()` and answers with the
 * events as JSON: proof that the adapter runs in workerd as it runs in Node.
 */
import { openai } from '../../../src/providers/openai/index.ts'
import type { Event } from '../../../src/core/events.ts'

export default {
  async fetch(request: Request): Promise<Response> {
    const recorded = await request.text()
    const adapter = openai({
      apiKey: 'sk-worker-key-0123456789',
      model: 'gpt-5.4',
      fetch: async () =>
        new Response(recorded, { headers: { 'content-type': 'text/event-stream' } }),
    })
    const events: Event[] = []
    for await (const event of adapter.stream({ turns: [{ role: 'user', content: 'Weather?' }] }))
      events.push(event)
    return Response.json(events)
  },
}
