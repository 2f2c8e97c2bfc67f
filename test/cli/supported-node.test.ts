import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MIN_NODE_VERSION } from '../../src/cli/supported-node.js';
import { CLI_PATH, type CliResult } from '../helpers/cli.js';
import { assertOneLineFailure, Sandbox } from './cli-support.js';

/** What Node 20 reports: it has Node-API 9, and better-sqlite3 13 needs 10 (it crashes there on the first open). */
const NODE_20 = "Object.defineProperty(process.versions, 'node', { value: '20.20.2' }); Object.defineProperty(process.versions, 'napi', { value: '9' });";

/** `ugs ...args` in a Node that reports itself as Node 20. */
function ugsOnNode20(args: string[], env: Record<string, string>): Promise<CliResult> {
  const preload = `data:text/javascript,${encodeURIComponent(NODE_20)}`;
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--import', preload, CLI_PATH, ...args],
      { env: { ...process.env, ...env }, timeout: 30_000, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(Object.assign(error, { stderr }));
        resolve({ code: child.exitCode, stdout, stderr });
      },
    );
  });
}

describe('supported Node versions', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  it('refuses a Node without Node-API 10 in one line, before opening the store', async () => {
    const dataDir = join(sandbox.dir(), 'data');
    const result = await ugsOnNode20(['migrate'], { UGS_DATA_DIR: dataDir, UGS_SECRET: '' });
    assertOneLineFailure(result, [`Node.js ${MIN_NODE_VERSION} or newer`, '20.20.2']);
    assert.equal(result.code, 1);
    assert.ok(!existsSync(dataDir), 'the data dir was created');
  });

  it('declares in package.json the same lowest Node the CLI accepts', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
    const lowest = /^\^?(\d+\.\d+\.\d+)/.exec(manifest.engines.node)?.[1];
    assert.equal(lowest, MIN_NODE_VERSION, `engines.node is ${manifest.engines.node}`);
  });
});
