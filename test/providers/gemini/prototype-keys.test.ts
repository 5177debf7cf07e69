import { describe, expect, it } from 'vitest'
import type { Conversation } from '../../../src/core/conversation.ts'
import { createPartialArgs } from '../../../src/providers/gemini/partial-args.ts'
import { collect, doneTurn, event, eventsAtCuts, failure, fixture, geminiWith } from './harness.ts'

const ask: Conversation = { turns: [{ role: 'user', content: 'Speichere eine Notiz.' }] }

/** Everything `Object.prototype` holds, to check that nothing was added or changed. */
const prototypeState = () =>
  Object.getOwnPropertyNames(Object.prototype).map((name) => [
    name,
    Object.getOwnPropertyDescriptor(Object.prototype, name),
  ])

describe('gemini streamed arguments and prototype keys', () => {
  it('keeps __proto__, constructor and prototype as plain fields of the arguments, never touching Object.prototype', async () => {
    const before = prototypeState()
    const events = await eventsAtCuts(fixture('prototype-keys.sse'), ask)
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined()
    expect(({} as { isAdmin?: unknown }).isAdmin).toBeUndefined()
    expect(prototypeState()).toEqual(before)

    const call = doneTurn(events).toolCalls?.[0]
    expect(call?.name).toBe('save_note')
    const input = call?.input as Record<string, unknown>
    // As JSON.parse builds it: plain objects, every key an own field.
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype)
    expect(JSON.stringify(input)).toBe(
      '{"__proto__":{"polluted":"ja!","isAdmin":true},"constructor":{"prototype":{"polluted":"ja"}},"prototype":[1],"title":"Notiz 📝"}',
    )
    expect(Object.hasOwn(input, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(input['__proto__'])).toBe(Object.prototype)
  })

  it('replays the call with those arguments as Gemini sent them (the SDK puts args first)', async () => {
    const { adapter, replay } = geminiWith([
      { body: fixture('prototype-keys.sse') },
      { body: fixture('conversation-3-answer.sse') },
    ])
    const conversation: Conversation = { turns: [...ask.turns] }
    const turn = doneTurn(await collect(adapter.stream(conversation)))
    conversation.turns.push(turn, {
      role: 'tool',
      results: [{ callId: 'gemini_1_0', name: 'save_note', output: 'ok' }],
    })
    await collect(adapter.stream(conversation))
    const body = replay.requests[1]?.body as { contents: { parts: unknown[] }[] }
    expect(JSON.stringify(body.contents[1]?.parts[0])).toBe(
      '{"functionCall":{"args":{"__proto__":{"polluted":"ja!","isAdmin":true},"constructor":{"prototype":{"polluted":"ja"}},"prototype":[1],"title":"Notiz 📝"},"name":"save_note"},"thoughtSignature":"U0lHLXByb3RvLWtleXM="}',
    )
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined()
  })

  it('builds the same from paths walked one fragment at a time, with nothing inherited', () => {
    const before = prototypeState()
    const args = createPartialArgs()
    args.apply([{ jsonPath: '$.__proto__.toString', stringValue: 'x' }])
    args.apply([{ jsonPath: "$['constructor']['prototype']['valueOf']", numberValue: 1 }])
    // A continued string starts from its own earlier piece, never from an inherited value.
    args.apply([{ jsonPath: '$.hasOwnProperty', stringValue: 'a', willContinue: true }])
    args.apply([{ jsonPath: '$.hasOwnProperty', stringValue: 'b' }])
    expect(prototypeState()).toEqual(before)
    expect(JSON.stringify(args.value())).toBe(
      '{"__proto__":{"toString":"x"},"constructor":{"prototype":{"valueOf":1}},"hasOwnProperty":"ab"}',
    )
  })

  it('fails with a clear server error when a path skips past the end of an array', async () => {
    const body = event({
      candidates: [
        {
          content: {
            parts: [
              {
                functionCall: {
                  name: 'f',
                  willContinue: true,
                },
              },
              {
                functionCall: {
                  partialArgs: [{ jsonPath: '$.list[100000000]', numberValue: 1 }],
                  willContinue: true,
                },
              },
            ],
          },
        },
      ],
    })
    const { adapter } = geminiWith([{ body }])
    const { events, error } = await failure(adapter.stream(ask))
    expect(events).toEqual([])
    expect(error).toMatchObject({ kind: 'server', provider: 'gemini' })
    expect((error as Error).message).toBe(
      'gemini: a streamed argument path ($.list[100000000]) skips past the end of its array',
    )
  })
})
