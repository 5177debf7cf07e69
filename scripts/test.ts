/**
 * `npm test`: every check a change must pass, ordered to end soonest on a small machine. Lint
 * (oxfmt, oxlint) first, since it fails fastest; then the build, since the packed-package tests
 * and publint read `dist/`; then Vitest with the type check beside it (Vitest's start and its
 * last files leave a core idle, which the type check's 12 s of CPU fills: each tsc runs on one
 * thread, which on two cores ends sooner than its checkers in parallel and spends 4 s less CPU);
 * then publint.
 *
 * Vitest writes as it goes; the type check's output is held and written after Vitest's, so the
 * two never interleave. Every step after the build runs even when one fails, and the exit code
 * is 1 when any failed, with a line naming which.
 */
import { spawn } from 'node:child_process'

type Step = { name: string; command: string; args: readonly string[] }

const run = (name: string): Step => ({ name, command: 'npm', args: ['run', '-s', name] })

/** Runs a step; with `quiet`, its output is kept and given back rather than written. */
function exec(step: Step, quiet = false): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, {
      stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    })
    const chunks: Buffer[] = []
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.on('error', (error) => resolve({ ok: false, output: `${error.message}\n` }))
    child.on('close', (code) =>
      resolve({ ok: code === 0, output: Buffer.concat(chunks).toString() }),
    )
  })
}

const failed: string[] = []
for (const step of [run('lint'), run('build')]) {
  if (!(await exec(step)).ok) {
    console.error(`npm test: ${step.name} failed`)
    process.exit(1)
  }
}

const typecheck = exec(run('typecheck'), true)
if (!(await exec(run('test:unit'))).ok) failed.push('test:unit')
const typed = await typecheck
process.stdout.write(typed.output)
if (!typed.ok) failed.push('typecheck')
// npm puts node_modules/.bin on the PATH of the scripts it runs, this one included.
if (!(await exec({ name: 'publint', command: 'publint', args: ['--strict'] })).ok) {
  failed.push('publint')
}

if (failed.length > 0) {
  console.error(`npm test: ${failed.join(', ')} failed`)
  process.exit(1)
}
