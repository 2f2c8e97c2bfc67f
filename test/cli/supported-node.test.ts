import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { MIN_NODE_VERSION, unsupportedNodeReason } from '../../src/cli/supported-node.js';
import { CLI_PATH, type CliResult } from '../helpers/cli.js';
import { nodeBuild } from '../helpers/node-build.js';
import { assertOneLineFailure, Sandbox } from './cli-support.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; scripts: { start: string } };

/**
 * Real official builds of Node lines the service does not run on: 16 (the
 * entry point must still parse there), 18 (node:zlib has no crc32, which a
 * statically imported command used to trip over with a stack trace) and 22.13
 * (the newest Node-API 9 release, just below what better-sqlite3 13 needs).
 */
const UNSUPPORTED = ['16.20.2', '18.20.8', '22.13.1'];

/** `npm start`'s command (`exec node <flags> dist/src/cli/main.js serve`) with `node` replaced by `nodePath`. */
function startCommand(nodePath: string): string[] {
  const words = manifest.scripts.start.split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ['exec', 'node'], `npm start is ${manifest.scripts.start}`);
  return [nodePath, ...words.slice(2)];
}

function runWith([file, ...args]: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(file!, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: 30_000, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(Object.assign(error, { stderr }));
      resolve({ code: child.exitCode, stdout, stderr });
    });
  });
}

describe('supported Node versions', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  for (const version of UNSUPPORTED) {
    it(`refuses a real Node ${version} in one line, exit 1, for ugs --help, ugs keys list and npm start, creating nothing`, { timeout: 300_000 }, async (t) => {
      const build = await nodeBuild(version);
      if ('unavailable' in build) return t.skip(build.unavailable);
      const dataDir = join(sandbox.dir(), 'data');
      const env = { UGS_DATA_DIR: dataDir, UGS_SECRET: '', PORT: '0' };
      for (const command of [[build.node, CLI_PATH, '--help'], [build.node, CLI_PATH, 'keys', 'list'], startCommand(build.node)]) {
        const result = await runWith(command, env);
        assertOneLineFailure(result, [`Node.js ${MIN_NODE_VERSION} or newer`, '22.14.0 or newer', `this is Node.js ${version}.`]);
        assert.equal(result.code, 1, command.join(' '));
        assert.equal(result.stdout, '', command.join(' '));
      }
      assert.ok(!existsSync(dataDir), 'the data dir was created');
    });
  }

  it('declares in package.json the same lowest Node the CLI accepts', () => {
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
