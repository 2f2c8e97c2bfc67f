import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { writeFileDurably } from '../../src/platform/durable-file.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('writeFileDurably', () => {
  const dir = makeTempDir('ugs-durable-file');
  after(() => dir.remove());

  it('creates the file with mode 0600 and leaves no temporary file behind', () => {
    const path = join(dir.path, 'created');
    writeFileDurably(path, 'first\n', { exclusive: true });
    assert.equal(readFileSync(path, 'utf8'), 'first\n');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir.path), ['created']);
  });

  it('exclusive: refuses with EEXIST when the file exists, and keeps the existing content', () => {
    const path = join(dir.path, 'created');
    assert.throws(() => writeFileDurably(path, 'second\n', { exclusive: true }), { code: 'EEXIST' });
    assert.equal(readFileSync(path, 'utf8'), 'first\n');
    assert.deepEqual(readdirSync(dir.path), ['created']);
  });

  it('not exclusive: replaces the file whole', () => {
    const path = join(dir.path, 'created');
    writeFileDurably(path, 'third\n', { exclusive: false });
    assert.equal(readFileSync(path, 'utf8'), 'third\n');
    assert.deepEqual(readdirSync(dir.path), ['created']);
  });
});
