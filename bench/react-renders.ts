/**
 * How often React renders while a 10,000-token answer streams in, under happy-dom. Each variant
 * reads the same tokens from a fetch that delivers one token per network read, with room for
 * React to render between reads, as a real stream does:
 * - thinkwire `useChat` over `relay()`, its scheduler replaced by a fake frame clock that ticks
 *   once every `FRAME_TOKENS` tokens (what `requestAnimationFrame` does for a fast stream);
 * - a naive component that calls `setState` for every token it reads from the same `relay()`;
 * - `@ai-sdk/react`'s `useChat` with its default transport, fed the same tokens in its own wire
 *   format.
 * Renders are commits counted by a `Profiler`. Run alone: `npx tsx bench/react-renders.ts`.
 */
import { Chat as AiChat, useChat as useAiChat } from '@ai-sdk/react'
import { DefaultChatTransport, type UIMessage } from 'ai'
import { Window } from 'happy-dom'
import { createElement, Profiler, useState, type ReactNode } from 'react'
import { createRoot } from 'react-dom/client'
import { relay } from '../src/client/index.ts'
import type { AssistantTurn } from '../src/core/conversation.ts'
import { useChat } from '../src/react/index.ts'
import { createSseEncoder } from '../src/relay/sse.ts'
import { isMain, median, printTable, type Row } from './harness.ts'

const TOKENS = 10_000
/** Tokens per animation frame: 60 frames a second at 480 tokens a second, a fast model. */
const FRAME_TOKENS = 8
const ROUNDS = 3
const token = (i: number) => `t${i} `
const answer = Array.from({ length: TOKENS }, (_, i) => token(i)).join('')

/** Two trips through the event loop: the next token arrives after React had its turn. */
const nextRead = () =>
  new Promise<void>((resolve) => setImmediate(() => setImmediate(() => resolve())))

/** A fetch whose body delivers `frames[i]` one read at a time, ticking `onToken` per token. */
function streamingFetch(
  head: string,
  frames: (i: number) => string,
  tail: string,
  headers: Record<string, string>,
  onToken: (i: number) => void = () => {},
): typeof globalThis.fetch {
  const utf8 = new TextEncoder()
  return async () => {
    let i = -1
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await nextRead()
        if (i === -1) controller.enqueue(utf8.encode(head))
        else if (i < TOKENS) {
          onToken(i)
          controller.enqueue(utf8.encode(frames(i)))
        } else {
          controller.enqueue(utf8.encode(tail))
          controller.close()
        }
        i++
      },
    })
    return new Response(body, { headers })
  }
}

/** The relay's wire: one `text` event per token, then `done`. */
function relayFetch(onToken?: (i: number) => void): typeof globalThis.fetch {
  const sse = createSseEncoder()
  const turn: AssistantTurn = {
    role: 'assistant',
    text: answer,
    usage: { inputTokens: 1, outputTokens: TOKENS },
    stopReason: 'stop',
    items: { provider: 'bench', model: 'tokens', thinkingMode: 'default', data: [] },
  }
  const done = sse.event('done', JSON.stringify({ turn }))
  return streamingFetch(
    '',
    (i) => sse.event('text', JSON.stringify({ text: token(i) })),
    done,
    { 'content-type': 'text/event-stream' },
    onToken,
  )
}

/** The AI SDK's UI message stream: one `text-delta` per token. */
function aiSdkFetch(): typeof globalThis.fetch {
  const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`
  return streamingFetch(
    data({ type: 'start' }) + data({ type: 'start-step' }) + data({ type: 'text-start', id: 't' }),
    (i) => data({ type: 'text-delta', id: 't', delta: token(i) }),
    data({ type: 'text-end', id: 't' }) +
      data({ type: 'finish-step' }) +
      data({ type: 'finish' }) +
      'data: [DONE]\n\n',
    { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' },
  )
}

/** A frame clock: `useChat`'s scheduler queues, and `tick` runs what is queued. */
function frameClock() {
  let queued: (() => void)[] = []
  return {
    scheduler: (flush: () => void) => void queued.push(flush),
    tick() {
      const due = queued
      queued = []
      for (const flush of due) flush()
    },
  }
}

type Measured = { renders: number; ms: number; text: number }

/** Mounts `node` inside a Profiler, runs `drive`, and counts commits until it settles. */
async function mount(
  node: (ready: () => void) => ReactNode,
  drive: () => Promise<void>,
): Promise<Measured> {
  const container = document.createElement('div')
  document.body.append(container)
  const root = createRoot(container)
  let renders = 0
  let mounted!: () => void
  const isMounted = new Promise<void>((resolve) => (mounted = resolve))
  root.render(
    createElement(Profiler, { id: 'chat', onRender: () => void renders++ }, node(mounted)),
  )
  await isMounted
  const start = renders
  const started = performance.now()
  await drive()
  await nextRead()
  const ms = performance.now() - started
  const text = container.textContent?.length ?? 0
  root.unmount()
  container.remove()
  return { renders: renders - start, ms, text }
}

let api: { send(): Promise<void> } | undefined

function ThinkwireChat({
  ready,
  tick,
}: {
  ready: () => void
  tick: ReturnType<typeof frameClock>
}) {
  const [adapter] = useState(() =>
    relay({ url: 'http://relay.local', model: 'bench/tokens', fetch: relayFetch(onToken) }),
  )
  function onToken(i: number) {
    if (i % FRAME_TOKENS === 0) tick.tick()
  }
  const chat = useChat({ adapter, scheduler: tick.scheduler })
  api = { send: () => chat.send('Go') }
  ready()
  return createElement(
    'div',
    null,
    chat.messages.map((m) =>
      createElement('p', { key: m.id }, m.role === 'assistant' ? m.text : ''),
    ),
  )
}

let setNaive: ((update: (text: string) => string) => void) | undefined

function NaiveChat({ ready }: { ready: () => void }) {
  const [text, setText] = useState('')
  setNaive = setText
  ready()
  return createElement('div', null, createElement('p', null, text))
}

let aiApi: { send(): Promise<void> } | undefined

function AiSdkChat({ ready, chat }: { ready: () => void; chat: AiChat<UIMessage> }) {
  const { messages, sendMessage } = useAiChat({ chat })
  aiApi = { send: () => sendMessage({ text: 'Go' }) }
  ready()
  return createElement(
    'div',
    null,
    messages.map((m) =>
      createElement(
        'p',
        { key: m.id },
        m.role === 'assistant'
          ? m.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')
          : '',
      ),
    ),
  )
}

const variants: { name: string; run: () => Promise<Measured> }[] = [
  {
    name: `thinkwire useChat (frame clock: 1 frame per ${FRAME_TOKENS} tokens)`,
    run: () => {
      const clock = frameClock()
      return mount(
        (ready) => createElement(ThinkwireChat, { ready, tick: clock }),
        () => api!.send(),
      )
    },
  },
  {
    name: 'naive setState per token (same relay() stream)',
    run: () =>
      mount(
        (ready) => createElement(NaiveChat, { ready }),
        async () => {
          const adapter = relay({
            url: 'http://relay.local',
            model: 'bench/tokens',
            fetch: relayFetch(),
          })
          for await (const event of adapter.stream({ turns: [{ role: 'user', content: 'Go' }] })) {
            if (event.type === 'text') setNaive!((text) => text + event.text)
          }
        },
      ),
  },
  {
    name: '@ai-sdk/react useChat (default transport, same tokens)',
    run: () => {
      const chat = new AiChat<UIMessage>({
        transport: new DefaultChatTransport({
          api: 'http://relay.local/api/chat',
          fetch: aiSdkFetch(),
        }),
      })
      return mount(
        (ready) => createElement(AiSdkChat, { ready, chat }),
        () => aiApi!.send(),
      )
    },
  },
]

/** Puts happy-dom's window in the globals React DOM reads; returns the function that removes it. */
function installDom(): () => void {
  const window = new Window({ url: 'http://localhost/' })
  const names = ['window', 'document', 'navigator', 'Node', 'Element', 'HTMLElement', 'Text']
  const added: string[] = []
  for (const name of names) {
    if (name in globalThis && name !== 'navigator') continue
    Object.defineProperty(globalThis, name, {
      value: Reflect.get(window, name),
      configurable: true,
      writable: true,
    })
    added.push(name)
  }
  return () => {
    for (const name of added) Reflect.deleteProperty(globalThis, name)
    void window.happyDOM.close()
  }
}

/** Row 5: renders per 10,000-token answer. */
export async function benchReactRenders(): Promise<Row[]> {
  const section = `5. React renders, ${TOKENS.toLocaleString('en')}-token answer (happy-dom)`
  const uninstall = installDom()
  const samples = variants.map(() => [] as Measured[])
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < variants.length; k++) {
        const i = (k + round) % variants.length
        const result = await variants[i]!.run()
        if (result.text < answer.length) {
          throw new Error(
            `${variants[i]!.name}: rendered ${result.text} of ${answer.length} characters`,
          )
        }
        samples[i]!.push(result)
      }
    }
  } finally {
    // Let React finish what it scheduled (passive effects of the last unmount) before the DOM goes.
    await new Promise((resolve) => setTimeout(resolve, 50))
    uninstall()
  }
  const renders = samples.map((s) => median(s.map((m) => m.renders)))
  return variants.map((v, i) => ({
    section,
    name: v.name,
    value: `${renders[i]} renders`,
    note:
      `${(median(samples[i]!.map((m) => m.ms)) / 1000).toFixed(2)} s (React development build)` +
      (i === 0 ? '' : `; ${(renders[i]! / renders[0]!).toFixed(1)}x thinkwire's renders`),
  }))
}

if (isMain(import.meta.url)) printTable(await benchReactRenders())
