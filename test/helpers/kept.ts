/**
 * Values that take seconds to make (a bundle, wrangler's reading of wrangler.toml), kept on disk
 * from one test run to the next until a file they were made from changes.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** Size and modification time of every file a record was made from (null: none there). */
type Inputs = Record<string, [size: number, modified: number] | null>

/**
 * The value kept in `cache` as `key`, when none of the files it was made from changed since;
 * else made now by `make`, from `sources`, into `made` (a kept value whose files went missing is
 * made again), and kept, unless a source changed while it was made (a build could hold half of
 * the edit). The record is replaced whole, so files running at once never read half of one.
 */
export async function kept<T>(
  cache: string,
  key: string,
  make: () => Promise<{ value: T; sources: string[]; made: string[] }>,
): Promise<T> {
  const record = join(cache, `${key}.json`)
  const found = await readFile(record, 'utf8').then(
    (text) => JSON.parse(text) as { value: T; inputs: Inputs },
    () => undefined,
  )
  if (found !== undefined && (await unchanged(found.inputs))) return found.value

  await mkdir(cache, { recursive: true })
  const started = Date.now()
  const { value, sources, made } = await make()
  const stamps = await Promise.all(sources.map(stamp))
  const inputs: Inputs = Object.fromEntries([
    ...sources.map((path, i) => [path, stamps[i]!]),
    ...(await Promise.all(made.map(async (path) => [path, await stamp(path)]))),
  ])
  if (stamps.every((was) => was === null || was[1] < started)) {
    const temp = `${record}.${randomUUID()}`
    await writeFile(temp, JSON.stringify({ value, inputs }))
    await rename(temp, record)
  }
  return value
}

async function stamp(path: string): Promise<[number, number] | null> {
  return stat(path).then(
    ({ size, mtimeMs }) => [size, mtimeMs],
    () => null,
  )
}

async function unchanged(inputs: Inputs): Promise<boolean> {
  const now = await Promise.all(Object.keys(inputs).map(stamp))
  return Object.values(inputs).every((was, i) => JSON.stringify(was) === JSON.stringify(now[i]))
}

/**
 * Removes the older builds of `key` from `cache`: the folders `<key>-*` other than `current`, after
 * an hour (a test file may be starting one).
 */
export async function pruneBuilds(cache: string, key: string, current: string): Promise<void> {
  const hourAgo = Date.now() - 60 * 60 * 1000
  for (const name of await readdir(cache)) {
    const path = join(cache, name)
    if (!name.startsWith(`${key}-`) || name.endsWith('.json') || path === current) continue
    const modified = await stat(path).then(
      ({ mtimeMs }) => mtimeMs,
      () => Date.now(),
    )
    if (modified < hourAgo) await rm(path, { recursive: true, force: true })
  }
}
