import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { MIN_NODE_VERSION } from '../../src/cli/supported-node.js';
import type { CliResult } from '../helpers/cli.js';
import { nodeBuild } from '../helpers/node-build.js';
import { assertOneLineFailure } from '../cli/cli-support.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const EXAMPLES = Object.keys(scripts).filter((name) => name.startsWith('example:'));

/** The `node` command of an `npm run example:*` script, with `node` replaced by `nodePath`. */
function exampleCommand(name: string, nodePath: string): string[] {
  const words = scripts[name]!.split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ['exec', 'node'], `${name} is ${scripts[name]}`);
  return [nodePath, ...words.slice(2)];
}

function runWith([file, ...args]: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file!,
      args,
      { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: 30_000, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(Object.assign(error, { stderr, stdout }));
        resolve({ code: child.exitCode, stdout, stderr });
      },
    );
  });
}

/**
 * Issue 43, item 8: on Node 20 the examples crashed with "Segmentation fault" (the SQLite driver, built for
 * Node-API 10, loaded before anything could check), where `ugs` refuses in one line. They run the same check
 * (examples/start-example.ts, src/cli/supported-node.ts) before importing anything else. Real official builds:
 * 20 (past its end of life; the driver crashes it) and 22.13 (just below the Node-API the driver needs).
 */
describe('npm run example:* on a Node the service does not support', () => {
  it('has examples to check', () => assert.ok(EXAMPLES.length >= 2, EXAMPLES.join(', ')));

  for (const version of ['20.20.2', '22.13.1']) {
    it(`refuses a real Node ${version} in one line, exit 1, before starting anything`, { timeout: 300_000 }, async (t) => {
      const build = await nodeBuild(version);
      if ('unavailable' in build) return t.skip(build.unavailable);
      // Settings every example would accept, so only the Node version can stop it.
      const env = {
        UGS_URL: 'http://127.0.0.1:9',
        UGS_API_KEY: 'ugsk_not-used',
        UGS_WEBHOOK_SECRET: `whsec_${Buffer.alloc(24, 7).toString('base64')}`,
        RECEIVER_PORT: '0',
        DASHBOARD_PORT: '0',
        CUSTOMER_APP_PORT: '0',
      };
      for (const name of EXAMPLES) {
        const result = await runWith(exampleCommand(name, build.node), env);
        assertOneLineFailure(result, [
          `${name}: Node.js ${MIN_NODE_VERSION} or newer on the 22 line, or Node.js 24`,
          `this is Node.js ${version}.`,
        ]);
        assert.equal(result.code, 1, `${name}: ${result.stderr}`);
        assert.equal(result.stdout, '', name);
      }
    });
  }
});
