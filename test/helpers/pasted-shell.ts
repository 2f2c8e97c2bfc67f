import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/**
 * The documentation's shell blocks, run the way a newcomer runs them: pasted
 * one after another into one shell (so variables and background jobs carry
 * over), in the repository's root.
 */

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The ```sh blocks of the section of `file` (relative to the root) under `heading`, up to the next heading of its level or higher. */
export function shBlocks(file: string, heading: string): string[] {
  const lines = readFileSync(`${ROOT}/${file}`, 'utf8').split('\n');
  const start = lines.indexOf(heading);
  assert.ok(start >= 0, `${file} has no "${heading}" section`);
  const level = heading.split(' ')[0]!.length;
  const blocks: string[] = [];
  let block: string[] | undefined;
  let fenced = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('```')) {
      fenced = !fenced;
      if (fenced && line === '```sh') block = [];
      else if (!fenced && block) {
        blocks.push(`${block.join('\n')}\n`);
        block = undefined;
      }
      continue;
    }
    if (block) block.push(line);
    // A "# comment" inside a block is no heading.
    else if (!fenced && /^#+ /.test(line) && line.indexOf(' ') <= level) break;
  }
  assert.ok(blocks.length > 0, `${file} has no sh block under "${heading}"`);
  return blocks;
}

/** The README's Quick start block but its `npm ci` line (the tests run on an install and a build already made). */
export function quickStartBlock(): string {
  const [block] = shBlocks('README.md', '## Quick start');
  assert.match(block!, /^npm ci\b.*$/m);
  return block!.replace(/^npm ci\b.*$/m, '');
}

export interface PastedShell {
  /** Pastes `block` and resolves with the exit status of its last command once the shell has run all of it. */
  paste(block: string, timeoutMs?: number): Promise<number>;
  /** Pastes `block` without waiting for it to finish: for a block that ends in a server running in the foreground. */
  pasteAndLeaveRunning(block: string): void;
  /** Resolves with the first match of `pattern` in what the shell printed (stdout), waiting for it up to `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  stdout(): string;
  stderr(): string;
  /** stderr without the line each `ugs` command prints by design to name the store it opened (`ugs: store: …`). */
  unexpectedStderr(): string;
  /** Ends the shell and everything it started (its process group), SIGTERM first. */
  close(): Promise<void>;
}

export interface ShellOptions {
  /**
   * `set -euo pipefail` before the first block (the default), so that a failing line ends the shell where the test
   * can see it. `false`: the shell as a reader's terminal has it, which a failing line does not end; for blocks
   * that must stop at their first failure by themselves.
   */
  strict?: boolean;
}

/**
 * A shell (`bash` or `zsh`) reading pasted blocks on stdin. It runs in a
 * process group of its own: close() ends the background jobs the blocks
 * started too.
 */
export function openShell(shell: 'bash' | 'zsh', env: NodeJS.ProcessEnv, { strict = true }: ShellOptions = {}): PastedShell {
  const child = spawn(shell, ['-s'], { cwd: ROOT, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let exited: number | null | undefined;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<void>((resolve) => child.on('exit', (code, signal) => ((exited = code ?? (signal ? -1 : null)), resolve())));
  if (strict) child.stdin.write('set -euo pipefail\n');
  const context = () => `\nstdout:\n${stdout}\nstderr:\n${stderr}`;

  async function waitForOutput(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(stdout);
      if (match) return match;
      if (exited !== undefined) throw new Error(`the ${shell} exited (${exited}) before printing ${pattern}${context()}`);
      if (Date.now() > deadline) throw new Error(`the ${shell} printed no ${pattern} within ${timeoutMs} ms${context()}`);
      await sleep(50);
    }
  }

  /** Whether any process of the shell's group was there to get the signal. */
  function signalGroup(signal: NodeJS.Signals | 0): boolean {
    try {
      process.kill(-child.pid!, signal);
      return true;
    } catch {
      return false;
    }
  }

  return {
    async paste(block, timeoutMs = 60_000) {
      const marker = `pasted-${randomUUID()}`;
      child.stdin.write(`${block}\necho "${marker} $?"\n`);
      const match = await waitForOutput(new RegExp(`${marker} (\\d+)\\n`), timeoutMs);
      stdout = stdout.replace(match[0], '');
      return Number(match[1]);
    },
    pasteAndLeaveRunning(block) {
      child.stdin.write(`${block}\n`);
    },
    waitForOutput,
    stdout: () => stdout,
    stderr: () => stderr,
    unexpectedStderr: () => stderr.replace(/^ugs: store: .*\n/gm, ''),
    async close() {
      signalGroup('SIGTERM');
      // The shell ends first; its background jobs (a service draining) may take a moment longer.
      const deadline = Date.now() + 15_000;
      while (signalGroup(0) && Date.now() < deadline) await sleep(50);
      signalGroup('SIGKILL');
      await exit;
      child.stdin.destroy();
    },
  };
}
