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

/** Where one secret value is read from, and how the messages name it. */
export interface SecretInput {
  /** The two flags, as the user typed them: e.g. `--password-stdin`, `--password-env`. */
  stdinFlag: string;
  envFlag: string;
  /** What it is, for the messages: "password", "secret key". */
  noun: string;
  maxLength: number;
  /** What an empty value is refused with (what to do instead). */
  whenEmpty: string;
}

const PASSWORD_INPUT: SecretInput = {
  stdinFlag: '--password-stdin',
  envFlag: '--password-env',
  noun: 'password',
  maxLength: DATA_SOURCE_LIMITS.passwordMaxLength,
  whenEmpty: 'to store none, leave the password options out (an update: --clear-password)',
};

/** The password the options give: a string, null to remove it (`--clear-password`), undefined when none was given. */
export async function passwordFrom(options: PasswordOptions, output: Pick<CliOutput, 'stdin'>): Promise<string | null | undefined> {
  if (options.clearPassword) return null;
  return secretFrom({ stdin: options.passwordStdin, env: options.passwordEnv }, PASSWORD_INPUT, output);
}

/** A secret from a pipe (`stdin`) or the environment variable named `env`; undefined when neither was given. */
export async function secretFrom(
  from: { stdin?: boolean; env?: string },
  input: SecretInput,
  output: Pick<CliOutput, 'stdin'>,
): Promise<string | undefined> {
  if (from.stdin) return checked(input.stdinFlag, await readStdin(output.stdin?.(), input), input);
  if (from.env !== undefined) return checked(`${input.envFlag} ${from.env}`, fromEnvironment(from.env, input), input);
  return undefined;
}

function fromEnvironment(name: string, input: SecretInput): string {
  if (!ENV_NAME.test(name))
    throw new CliError(`${input.envFlag} takes the NAME of an environment variable (letters, digits, _), not a value.`);
  const value = process.env[name];
  if (value === undefined) throw new CliError(`${input.envFlag} ${name}: no environment variable ${name} is set.`);
  return value;
}

async function readStdin(stdin: CliInput | undefined, input: SecretInput): Promise<string> {
  if (stdin === undefined) throw new CliError(`${input.stdinFlag}: this run has no standard input to read.`);
  if (stdin.isTTY)
    throw new CliError(
      `${input.stdinFlag} reads a pipe or a file, not a terminal (typing there would show it): printf '%s' "$${input.noun.toUpperCase().replace(/ /g, '_')}" | ugs …, or use ${input.envFlag} NAME.`,
    );
  // A few bytes past the longest value taken: enough to refuse a longer one without reading a whole file.
  const cap = input.maxLength * 4 + 2;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    chunks.push(buffer);
    size += buffer.length;
    if (size > cap) break;
  }
  // One line ending, as `echo` and a file's last line add it; anything else is part of the value.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

function checked(source: string, value: string, input: SecretInput): string {
  if (value === '') throw new CliError(`${source} gave an empty ${input.noun}; ${input.whenEmpty}.`);
  if (value.length > input.maxLength)
    throw new CliError(`${source} gave a ${input.noun} longer than ${input.maxLength} characters, the most taken here.`);
  return value;
}
