import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CODES } from '../../src/domain/errors.js';
import { ERROR_STATUS } from '../../src/http/error-status.js';

const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

describe('error registry', () => {
  it('maps every code to one distinct 4xx or 5xx status', () => {
    assert.deepEqual(Object.keys(ERROR_STATUS).sort(), [...ERROR_CODES].sort());
    const statuses = Object.values(ERROR_STATUS);
    assert.equal(new Set(statuses).size, statuses.length);
    for (const status of statuses) assert.ok(status >= 400 && status < 600);
  });

  it('documents every code with its status in docs/errors.md', () => {
    for (const code of ERROR_CODES) {
      assert.match(doc, new RegExp(`\\| \`${code}\` \\| ${ERROR_STATUS[code]} \\|`), `${code} is not documented`);
    }
  });
});
