import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MIN_NODE_VERSION, unsupportedNodeReason } from '../../src/cli/supported-node.js';
import { CLI_PATH, type CliResult } from '../helpers/cli.js';
import { assertOneLineFailure, Sandbox } from './cli-support.js';

/** What Node 22.12 reports: Node-API 9, so neither driver build runs on it (13 needs 10, 12 is built for Node 20). */
const NODE_22_12 = "Object.defineProperty(process.versions, 'node', { value: '22.12.0' }); Object.defineProperty(process.versions, 'napi', { value: '9' });";

/** `ugs ...args` in a Node that reports itself as Node 22.12. */
function ugsOnNode2212(args: string[], env: Record<string, string>): Promise<CliResult> {
  const preload = `data:text/javascript,${encodeURIComponent(NODE_22_12)}`;
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

  it('refuses a Node that neither driver build runs on (22.12) in one line, before opening the store', async () => {
    const dataDir = join(sandbox.dir(), 'data');
    const result = await ugsOnNode2212(['migrate'], { UGS_DATA_DIR: dataDir, UGS_SECRET: '' });
    assertOneLineFailure(result, [`Node.js ${MIN_NODE_VERSION} or newer`, '22.14.0 or newer', '22.12.0']);
    assert.equal(result.code, 1);
    assert.ok(!existsSync(dataDir), 'the data dir was created');
  });

  it('declares in package.json the same lowest Node the CLI accepts', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
    const lowest = /^\^?(\d+\.\d+\.\d+)/.exec(manifest.engines.node)?.[1];
    assert.equal(lowest, MIN_NODE_VERSION, `engines.node is ${manifest.engines.node}`);
  });

  it('accepts Node 20.15 or later on the 20 line, and any Node with Node-API 10', () => {
    const accepts = (node: string, napi: string) => unsupportedNodeReason({ ...process.versions, node, napi }) === undefined;
    assert.equal(accepts('20.15.0', '9'), true);
    assert.equal(accepts('20.20.2', '9'), true);
    assert.equal(accepts('20.14.0', '9'), false);
    assert.equal(accepts('18.20.0', '9'), false);
    assert.equal(accepts('22.14.0', '10'), true);
    assert.equal(accepts('24.21.0', '10'), true);
  });
});
