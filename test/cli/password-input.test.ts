import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { passwordFrom } from '../../src/cli/password-input.js';
import { CliError } from '../../src/cli/run-command.js';
import { DATA_SOURCE_LIMITS } from '../../src/data-sources/data-source.js';

/** A pipe holding `text`; `tty` plays a terminal. */
const piped = (text: string, tty = false) => ({ stdin: () => Object.assign(Readable.from([Buffer.from(text)]), { isTTY: tty }) });
const refused = (pattern: RegExp) => (error: unknown) => error instanceof CliError && pattern.test(error.message);

describe('passwordFrom', () => {
  it('reads stdin whole, dropping one line ending (as echo and a file add it) and nothing else', async () => {
    assert.equal(await passwordFrom({ passwordStdin: true }, piped('pa ss\n')), 'pa ss');
    assert.equal(await passwordFrom({ passwordStdin: true }, piped('pass\r\n')), 'pass');
    assert.equal(await passwordFrom({ passwordStdin: true }, piped('pass\n\n')), 'pass\n');
    assert.equal(await passwordFrom({ passwordStdin: true }, piped(' pässwört ')), ' pässwört ');
  });

  it('refuses a terminal, no stdin, an empty password and one longer than a data source takes', async () => {
    await assert.rejects(passwordFrom({ passwordStdin: true }, piped('typed', true)), refused(/not a terminal.*--password-env/));
    await assert.rejects(passwordFrom({ passwordStdin: true }, {}), refused(/no standard input/));
    await assert.rejects(passwordFrom({ passwordStdin: true }, piped('\n')), refused(/empty password/));
    const long = 'x'.repeat(DATA_SOURCE_LIMITS.passwordMaxLength + 1);
    await assert.rejects(passwordFrom({ passwordStdin: true }, piped(long.repeat(100))), refused(/longer than 1024/));
    assert.equal(await passwordFrom({ passwordStdin: true }, piped(long.slice(1))), long.slice(1));
  });

  it('reads the environment variable named, never taking the value for a name', async () => {
    process.env.UGS_TEST_PASSWORD_INPUT = 'from-env';
    try {
      assert.equal(await passwordFrom({ passwordEnv: 'UGS_TEST_PASSWORD_INPUT' }, {}), 'from-env');
    } finally {
      delete process.env.UGS_TEST_PASSWORD_INPUT;
    }
    await assert.rejects(
      passwordFrom({ passwordEnv: 'UGS_TEST_PASSWORD_INPUT' }, {}),
      refused(/no environment variable UGS_TEST_PASSWORD_INPUT/),
    );
    // A password given where a name belongs is not echoed back.
    await assert.rejects(
      passwordFrom({ passwordEnv: 'hunter2!' }, {}),
      (e: unknown) => refused(/the NAME/)(e) && !(e as Error).message.includes('hunter2'),
    );
  });

  it('answers null for --clear-password and undefined when no option is given, reading nothing', async () => {
    const untouched = { stdin: () => assert.fail('stdin was read') };
    assert.equal(await passwordFrom({ clearPassword: true }, untouched), null);
    assert.equal(await passwordFrom({}, untouched), undefined);
  });
});
