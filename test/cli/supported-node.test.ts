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
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  scripts: { start: string };
};

/**
 * Real official builds of Node lines the service does not run on: 16 (the
 * entry point must still parse there), 18 (node:zlib has no crc32, which a
 * statically imported command used to trip over with a stack trace), 20 (past
 * its end of life; better-sqlite3 13 crashes it) and 22.13 (the newest
 * Node-API 9 release, just below what better-sqlite3 13 needs).
 */
const UNSUPPORTED = ['16.20.2', '18.20.8', '20.20.2', '22.13.1'];

/** `npm start`'s command (`exec node <flags> dist/src/cli/main.js serve`) with `node` replaced by `nodePath`. */
function startCommand(nodePath: string): string[] {
  const words = manifest.scripts.start.split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ['exec', 'node'], `npm start is ${manifest.scripts.start}`);
  return [nodePath, ...words.slice(2)];
}

function runWith([file, ...args]: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file!,
      args,
      { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: 30_000, killSignal: 'SIGKILL' },
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

  for (const version of UNSUPPORTED) {
    it(
      `refuses a real Node ${version} in one line, exit 1, for ugs --help, ugs keys list and npm start, creating nothing`,
      { timeout: 300_000 },
      async (t) => {
        const build = await nodeBuild(version);
        if ('unavailable' in build) return t.skip(build.unavailable);
        const dataDir = join(sandbox.dir(), 'data');
        const env = { UGS_DATA_DIR: dataDir, UGS_SECRET: '', PORT: '0' };
        for (const command of [[build.node, CLI_PATH, '--help'], [build.node, CLI_PATH, 'keys', 'list'], startCommand(build.node)]) {
          const result = await runWith(command, env);
          assertOneLineFailure(result, [
            `Node.js ${MIN_NODE_VERSION} or newer on the 22 line, or Node.js 24`,
            `this is Node.js ${version}.`,
          ]);
          assert.equal(result.code, 1, command.join(' '));
          assert.equal(result.stdout, '', command.join(' '));
        }
        assert.ok(!existsSync(dataDir), 'the data dir was created');
      },
    );
  }

  it('declares in package.json the same lowest Node the CLI accepts', () => {
    const lowest = /^\^?(\d+\.\d+\.\d+)/.exec(manifest.engines.node)?.[1];
    assert.equal(lowest, MIN_NODE_VERSION, `engines.node is ${manifest.engines.node}`);
  });

  it('accepts Node 22.14 or later on the 22 line and any Node 24, and nothing else', () => {
    const accepts = (node: string) => unsupportedNodeReason({ node }) === undefined;
    for (const node of ['22.14.0', '22.23.3', '24.0.0', '24.21.0']) assert.equal(accepts(node), true, node);
    for (const node of ['18.20.8', '20.20.2', '22.13.1', '23.11.0', '25.2.0', '26.10.0']) assert.equal(accepts(node), false, node);
  });

  it('is run by a Node it accepts (npm scripts run the node dev dependency, or the line .ci/run chose)', () => {
    assert.equal(unsupportedNodeReason(), undefined, `the tests run on Node.js ${process.versions.node}`);
  });
});
