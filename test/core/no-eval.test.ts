import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : []
  })
}

it('uses neither eval nor new Function anywhere in the source (Workers forbid both)', () => {
  const offenders = files('src').filter((file) =>
    /\beval\s*\(|new\s+Function\s*\(/.test(readFileSync(file, 'utf8')),
  )
  expect(offenders).toEqual([])
})
