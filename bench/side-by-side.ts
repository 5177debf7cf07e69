/**
 * The durable CPU rows of `bench/conversations.ts` for two trees side by side: this working tree
 * and a git revision (checked out in a temporary worktree), each in its own workerd, one answer of
 * each tree and path in turn. A change to the conversation path moves its ratio to `/v1/chat` by
 * less than this machine moves that ratio between two runs of `bench/conversations.ts`; side by
 * side, a slow moment weighs on both trees alike. Run the same revision against itself first to
 * see the spread of the comparison. A round in which a connection to either workerd dropped is
 * run again (up to three times, each said on stderr) rather than losing the run.
 * Run: `npx tsx bench/side-by-side.ts <revision> [rounds]`.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { startTestWorker } from '../test/worker/start-worker.ts'
import {
  answer,
  chatAnswer,
  cpuRounds,
  PROVIDER_MODEL,
  startMeasuredWorker,
  startProviderUpstream,
  type MeasuredWorker,
} from './conversations.ts'
import { fmt, isMain, median, middleHalf, printTable, type Row } from './harness.ts'

/** Answers of each tree and path a round, and rounds (after one that warms up). */
const BATCH = 30
const ROUNDS = 24
/** How many times a round in which a connection dropped is run again before the run fails. */
const RETRIES = 3
const root = resolve(import.meta.dirname, '..')
const MODELS = { scripted: 'test/tokens', Anthropic: PROVIDER_MODEL } as const
type Path = { tree: number; model: keyof typeof MODELS; where: 'chat' | 'conversation' }

/** The measured Worker of one tree, and the tree's name. */
type Running = MeasuredWorker & { name: string }

/** Both trees' ratios of a conversation's CPU to `/v1/chat`'s, per path, side by side. */
export async function sideBySide(revision: string, rounds = ROUNDS): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'thinkwire-side-'))
  execFileSync('git', ['worktree', 'add', '--detach', dir, revision], {
    cwd: root,
    stdio: 'ignore',
  })
  const upstream = await startProviderUpstream()
  const trees: Running[] = []
  try {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
    const other = (await import(pathToFileURL(join(dir, 'test/worker/start-worker.ts')).href)) as {
      startTestWorker: typeof startTestWorker
    }
    trees.push({ name: 'this tree', ...(await startMeasuredWorker(upstream)) })
    trees.push({ name: revision, ...(await startMeasuredWorker(upstream, other.startTestWorker)) })
    const paths: Path[] = []
    for (const tree of [0, 1]) {
      for (const model of ['scripted', 'Anthropic'] as const) {
        for (const where of ['chat', 'conversation'] as const) paths.push({ tree, model, where })
      }
    }
    const samples = await cpuRounds(
      paths.map(({ tree, model, where }) => {
        const { worker, pid } = trees[tree]!
        return {
          worker,
          pid,
          conversation: where === 'conversation',
          answer: (id: string) =>
            where === 'chat'
              ? chatAnswer(worker, MODELS[model])
              : answer(worker, id, MODELS[model]),
        }
      }),
      { rounds, batch: BATCH, pauseMs: 100, retries: RETRIES },
    )
    const section = `durable CPU side by side (${rounds} rounds of ${BATCH} answers of each)`
    const rows: Row[] = []
    for (let i = 0; i < paths.length; i += 2) {
      const [chat, conversation] = [samples[i]!, samples[i + 1]!]
      const ratios = conversation.map((ms, round) => ms / chat[round]!)
      rows.push({
        section,
        name: `${trees[paths[i]!.tree]!.name}, ${paths[i]!.model}: /v1/chat | conversation`,
        value: [`${fmt(median(chat))} ms`, `${fmt(median(conversation))} ms`],
        note: `${fmt(median(ratios), 3)}x (middle half ${middleHalf(ratios, 3)}x)`,
      })
    }
    return rows
  } finally {
    for (const tree of trees) await tree.worker.dispose()
    await upstream.close()
    execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: root, stdio: 'ignore' })
  }
}

if (isMain(import.meta.url)) {
  const revision = process.argv[2]
  if (revision === undefined)
    throw new Error('usage: npx tsx bench/side-by-side.ts <revision> [rounds]')
  printTable(
    await sideBySide(revision, process.argv[3] === undefined ? ROUNDS : Number(process.argv[3])),
  )
}
