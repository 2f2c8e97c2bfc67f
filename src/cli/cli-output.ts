import { Console } from 'node:console';

/** A stream `ugs` writes to; a terminal's width shapes the help. */
export type CliStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** A stream `ugs` reads a secret from (`--password-stdin`); a terminal is refused, as typing there echoes it. */
export type CliInput = NodeJS.ReadableStream & { isTTY?: boolean };

/** Where one run of `ugs` writes: the process's streams for the real binary, buffers for a test that runs it in process. */
export interface CliStreams {
  stdout: CliStream;
  stderr: CliStream;
  /**
   * What `--password-stdin` reads, asked for only then: touching process.stdin opens it, which no other command
   * (`ugs serve` above all) should do. Absent: such a command says it has no input.
   */
  stdin?: () => CliInput;
}

/** What a command writes with: `log` and `error` as console's, onto the run's streams; `stdout` for output written in chunks. */
export interface CliOutput extends CliStreams {
  log: Console['log'];
  error: Console['error'];
}

export function cliOutput(streams: CliStreams): CliOutput {
  // A console of its own formats as the global one does on the same streams (colours on a terminal included).
  const console = new Console({ stdout: streams.stdout, stderr: streams.stderr });
  return { stdout: streams.stdout, stderr: streams.stderr, stdin: streams.stdin, log: console.log, error: console.error };
}
