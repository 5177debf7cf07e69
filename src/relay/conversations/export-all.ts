const utf8 = new TextEncoder()

/**
 * `GET /v1/conversations?export=true` (DESIGN §14): a client's conversations whole, as one JSON
 * body (`WireConversationExport`), streamed one conversation at a time: each is asked for its
 * export (`exportOf`, its JSON; null once it is gone) as the body is read, so the index holds one
 * at a time, however many the client has.
 */
export function exportResponse(
  ids: readonly string[],
  exportOf: (id: string) => Promise<string | null>,
): Response {
  let next = 0
  let first = true
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(utf8.encode('{"conversations":['))
    },
    async pull(controller) {
      while (next < ids.length) {
        const exported = await exportOf(ids[next++]!)
        if (exported === null) continue
        controller.enqueue(utf8.encode(first ? exported : `,${exported}`))
        first = false
        return
      }
      controller.enqueue(utf8.encode(']}'))
      controller.close()
    },
  })
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'content-disposition': 'attachment; filename="conversations.json"',
    },
  })
}
