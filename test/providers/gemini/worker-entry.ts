/**
 * A Worker that streams the recorded body it is POSTed through `gemini()` and answers with the
 * events as JSON: proof that the adapter runs in workerd as it runs in Node.
 */
import type { Event } from '../../../src/core/events.ts'
import { gemini } from '../../../src/providers/gemini/index.ts'

export default {
  async fetch(request: Request): Promise<Response> {
    const recorded = await request.text()
    const adapter = gemini({
      apiKey: 'AIzaWorkerKeyThatIsNotReal0000000',
      model: 'gemini-3-flash-preview',
      fetch: async () =>
        new Response(recorded, { headers: { 'content-type': 'text/event-stream' } }),
    })
    const events: Event[] = []
    for await (const event of adapter.stream({ turns: [{ role: 'user', content: 'Wetter?' }] }))
      events.push(event)
    return Response.json(events)
  },
}
