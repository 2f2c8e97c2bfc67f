import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startTestServer } from './helpers/test-server.js';

/** Every file under `dir`, as bytes. */
function dumpFiles(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, bytes: readFileSync(path) }));
}

/** The forms a leaked secret could take on disk. */
function encodings(secret: string): Buffer[] {
  const raw = Buffer.from(secret);
  return [raw, Buffer.from(raw.toString('hex')), Buffer.from(raw.toString('base64')), Buffer.from(secret, 'utf16le')];
}

describe('secrets at rest', () => {
  it('no file in the data dir holds a plaintext token or API key, live or after shutdown', async () => {
    const server = await startTestServer({ secret: undefined });
    const secrets: string[] = [];
    const api = await server.client();
    secrets.push(api.key!);
    const revoked = await server.client({ environment: 'Testing' });
    secrets.push(revoked.key!);
    await server.services.apiKeys.revoke(revoked.keyId);
    for (let i = 0; i < 20; i++) {
      const token = (await api.getOrCreate({ user_group_id: `g${i}`, name: `G${i}`, properties: { i } })).json.user_group.token;
      secrets.push(token);
      if (i % 2 === 0) secrets.push((await api.rotate(token)).json.user_group.token);
    }

    const scan = (when: string) => {
      const files = dumpFiles(server.dataDir);
      assert.ok(files.some((f) => f.path.endsWith('.sqlite')), 'the store file was scanned');
      for (const { path, bytes } of files) {
        for (const secret of secrets) {
          for (const form of encodings(secret)) assert.equal(bytes.includes(form), false, `${when}: ${path} holds a secret`);
        }
      }
    };
    scan('while running');
    const dataDir = server.dataDir;
    await server.app.close();
    await server.services.close();
    scan('after shutdown');
    assert.equal(statSync(join(dataDir, 'server-secret')).mode & 0o777, 0o600);
    assert.equal(statSync(join(dataDir, 'user-groups.sqlite')).mode & 0o777, 0o600);
    await server.close();
  });
});
