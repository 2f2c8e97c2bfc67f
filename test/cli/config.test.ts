import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';

interface Setting {
  name: string;
  value: string | number | null;
  source: 'env' | 'default';
  description: string;
}

describe('ugs config', () => {
  const dir = makeTempDir('ugs-config');
  after(() => dir.remove());
  const dataDir = join(dir.path, 'never-created');
  const secret = randomBytes(32).toString('hex');
  const metricsToken = `mt_${randomBytes(16).toString('hex')}`;
  const env = {
    UGS_DATA_DIR: dataDir,
    UGS_SECRET: secret,
    UGS_METRICS_TOKEN: metricsToken,
    // An unreachable database: the command must not try to connect.
    DATABASE_URL: 'postgres://u:pw@h/db',
    PORT: '9090',
    // Unset here whatever the caller's environment says, so they show their defaults.
    HOST: '',
    UGS_PREVIOUS_SECRET: '',
    UGS_PG_POOL_SIZE: '',
  };

  it('--json: every setting with its value, source and description; secrets masked; the store never opened', async () => {
    const result = await runCli(['config', '--json'], env);
    assert.equal(result.code, 0, result.stderr);
    const settings = JSON.parse(result.stdout) as Setting[];
    const byName = new Map(settings.map((s) => [s.name, s]));
    assert.deepEqual(byName.get('PORT'), { name: 'PORT', value: 9090, source: 'env', description: 'TCP port to listen on.' });
    assert.deepEqual(byName.get('HOST')?.value, '127.0.0.1');
    assert.equal(byName.get('HOST')?.source, 'default');
    assert.deepEqual([byName.get('UGS_PG_POOL_SIZE')?.value, byName.get('UGS_PG_POOL_SIZE')?.source], [10, 'default']);
    assert.deepEqual([byName.get('UGS_SECRET')?.value, byName.get('UGS_SECRET')?.source], ['********', 'env']);
    assert.deepEqual([byName.get('UGS_METRICS_TOKEN')?.value, byName.get('UGS_METRICS_TOKEN')?.source], ['********', 'env']);
    assert.deepEqual([byName.get('UGS_PREVIOUS_SECRET')?.value, byName.get('UGS_PREVIOUS_SECRET')?.source], [null, 'default']);
    assert.deepEqual([byName.get('DATABASE_URL')?.value, byName.get('DATABASE_URL')?.source], ['postgres://u:****@h/db', 'env']);
    assert.deepEqual([byName.get('UGS_DATA_DIR')?.value, byName.get('UGS_DATA_DIR')?.source], [dataDir, 'env']);
    for (const setting of settings) assert.ok(setting.description.length > 0, `${setting.name} has a description`);
    for (const name of ['LOG_LEVEL', 'UGS_SHUTDOWN_TIMEOUT_MS', 'UGS_AUTH_FAILURES_PER_MINUTE', 'UGS_PG_CONNECT_TIMEOUT_MS'])
      assert.ok(byName.has(name), name);

    for (const output of [result.stdout, result.stderr]) {
      assert.ok(!output.includes(secret));
      assert.ok(!output.includes(metricsToken));
      assert.ok(!output.includes(':pw@'));
    }
    assert.equal(existsSync(dataDir), false, 'ugs config must not open the store');
  });

  it('prints a table by default, with the same masking', async () => {
    const result = await runCli(['config'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^NAME\s+VALUE\s+SOURCE\s+DESCRIPTION$/m);
    assert.match(result.stdout, /^PORT\s+9090\s+env\s+TCP port/m);
    assert.match(result.stdout, /^UGS_SECRET\s+\*{8}\s+env\s/m);
    assert.match(result.stdout, /^UGS_PREVIOUS_SECRET\s+\(unset\)\s+default\s/m);
    assert.match(result.stdout, /^DATABASE_URL\s+postgres:\/\/u:\*{4}@h\/db\s+env\s/m);
    assert.ok(!result.stdout.includes(secret) && !result.stdout.includes(metricsToken) && !result.stdout.includes(':pw@'));
  });

  it('a bad value is one error line naming the variable, never showing a secret', async () => {
    const badPort = await runCli(['config', '--json'], { ...env, PORT: 'abc' });
    assert.equal(badPort.code, 1);
    assert.equal(badPort.stdout, '');
    assert.equal(badPort.stderr.trim().split('\n').length, 1, badPort.stderr);
    assert.match(badPort.stderr, /^ugs: Invalid PORT="abc": /);

    const shortToken = await runCli(['config'], { ...env, UGS_METRICS_TOKEN: 'short-secret' });
    assert.equal(shortToken.code, 1);
    assert.equal(shortToken.stderr.trim().split('\n').length, 1, shortToken.stderr);
    assert.match(shortToken.stderr, /^ugs: Invalid UGS_METRICS_TOKEN=\(hidden\): /);
    assert.ok(!shortToken.stderr.includes('short-secret'));
  });
});
