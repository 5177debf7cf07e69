/**
 * `npm test`: every check a change must pass, ordered to end soonest on a small machine. Lint
 * (oxfmt, oxlint) and the build first, side by side (about 1 s and 2 s), since lint fails fastest
 * and the packed-package tests and publint read `dist/`; then Vitest with the type check (11 s of
 * CPU, 6.5 s with the build info kept from the run before) and publint (2.5 s) beside it, sharing
 * the machine with Vitest's workers rather than running after them (each tsc runs on one thread,
 * which on two cores ends sooner than its checkers in parallel and spends 4 s less CPU).
 *
 * Vitest writes as it goes; the output of the steps beside it is held and written after Vitest's,
 * so none interleave. Every step after the build runs even when one fails, and the exit code is 1
 * when any failed, with a line naming which.
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

/** Runs `steps` at once, their output held. */
const together = (steps: readonly Step[]) => Promise.all(steps.map((step) => exec(step, true)))

/** Writes the held output of each of `steps`, in order; gives the names of those that failed. */
function report(steps: readonly Step[], results: { ok: boolean; output: string }[]): string[] {
  for (const { output } of results) process.stdout.write(output)
  return steps.filter((_, i) => !results[i]!.ok).map((step) => step.name)
}

const early = [run('lint'), run('build')]
const earlyFailed = report(early, await together(early))
if (earlyFailed.length > 0) {
  console.error(`npm test: ${earlyFailed.join(', ')} failed`)
  process.exit(1)
}

// npm puts node_modules/.bin on the PATH of the scripts it runs, this one included.
const checks = [run('typecheck'), { name: 'publint', command: 'publint', args: ['--strict'] }]
const checking = together(checks)
const failed: string[] = []
if (!(await exec(run('test:unit'))).ok) failed.push('test:unit')
failed.push(...report(checks, await checking))

if (failed.length > 0) {
  console.error(`npm test: ${failed.join(', ')} failed`)
  process.exit(1)
}
