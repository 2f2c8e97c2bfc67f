import { DATA_SOURCE_LIMITS } from '../data-sources/data-source.js';
import type { CliInput, CliOutput } from './cli-output.js';
import { CliError } from './run-command.js';

/**
 * Where a command takes a password from. Never an argument: `ps`, /proc/<pid>/cmdline and shell history show
 * those to every user of the machine. A pipe (`--password-stdin`) or the name of an environment variable
 * (`--password-env NAME`, whose value only the process and its owner can read) keep it out of all three.
 */
export interface PasswordOptions {
  passwordStdin?: boolean;
  passwordEnv?: string;
  /** Only where removing one means something (an update). */
  clearPassword?: boolean;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The password the options give: a string, null to remove it (`--clear-password`), undefined when none was given. */
export async function passwordFrom(options: PasswordOptions, output: Pick<CliOutput, 'stdin'>): Promise<string | null | undefined> {
  if (options.clearPassword) return null;
  if (options.passwordStdin) return checked('--password-stdin', await readStdin(output.stdin?.()));
  if (options.passwordEnv !== undefined) return checked(`--password-env ${options.passwordEnv}`, fromEnvironment(options.passwordEnv));
  return undefined;
}

function fromEnvironment(name: string): string {
  if (!ENV_NAME.test(name))
    throw new CliError(`--password-env takes the NAME of an environment variable (letters, digits, _), not a value.`);
  const value = process.env[name];
  if (value === undefined) throw new CliError(`--password-env ${name}: no environment variable ${name} is set.`);
  return value;
}

async function readStdin(stdin: CliInput | undefined): Promise<string> {
  if (stdin === undefined) throw new CliError('--password-stdin: this run has no standard input to read.');
  if (stdin.isTTY)
    throw new CliError(
      '--password-stdin reads a pipe or a file, not a terminal (typing there would show it): printf \'%s\' "$PASSWORD" | ugs …, or use --password-env NAME.',
    );
  // A few bytes past the longest password a data source takes: enough to refuse a longer one without reading a whole file.
  const cap = DATA_SOURCE_LIMITS.passwordMaxLength * 4 + 2;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    chunks.push(buffer);
    size += buffer.length;
    if (size > cap) break;
  }
  // One line ending, as `echo` and a file's last line add it; anything else is part of the password.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

function checked(source: string, password: string): string {
  if (password === '')
    throw new CliError(`${source} gave an empty password; to store none, leave the password options out (an update: --clear-password).`);
  if (password.length > DATA_SOURCE_LIMITS.passwordMaxLength)
    throw new CliError(
      `${source} gave a password longer than ${DATA_SOURCE_LIMITS.passwordMaxLength} characters, the most a data source takes.`,
    );
  return password;
}
