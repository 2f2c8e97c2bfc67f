import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CODES } from '../../../src/kernel/errors.js';
import { ERROR_STATUS, ERROR_WHEN } from '../../../src/platform/http/error-status.js';
import { errorsDoc } from '../../../scripts/docs/errors-doc.js';

const doc = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');

describe('error registry', () => {
  it('maps every code to one distinct 4xx or 5xx status', () => {
    assert.deepEqual(Object.keys(ERROR_STATUS).sort(), [...ERROR_CODES].sort());
    const statuses = Object.values(ERROR_STATUS);
    assert.equal(new Set(statuses).size, statuses.length);
    for (const status of statuses) assert.ok(status >= 400 && status < 600);
  });

  it('says when each code is answered', () => {
    assert.deepEqual(Object.keys(ERROR_WHEN).sort(), [...ERROR_CODES].sort());
    for (const when of Object.values(ERROR_WHEN)) assert.ok(when.length > 0);
  });

  it('docs/errors.md is what `npm run docs` generates from this table (run it after changing a code)', () => {
    assert.equal(doc, errorsDoc());
  });

  it('documents every code with its status in docs/errors.md', () => {
    for (const code of ERROR_CODES) {
      assert.match(doc, new RegExp(`\\| \`${code}\` \\| ${ERROR_STATUS[code]} \\|`), `${code} is not documented`);
    }
  });
});
