import { readFileSync, writeFileSync } from 'node:fs';
import { errorsDoc } from './docs/errors-doc.js';
import { pageWithSettings } from './docs/settings-table.js';

/**
 * `npm run docs`: rewrites the generated parts of the docs (docs/errors.md, docs/settings.md's table) from
 * the code that owns those facts. test/platform/http/error-status.http-layer.test.ts and test/readme.test.ts fail when the
 * checked-in files differ.
 */
const root = new URL('../../', import.meta.url);
writeFileSync(new URL('docs/errors.md', root), errorsDoc());
const settings = new URL('docs/settings.md', root);
writeFileSync(settings, pageWithSettings(readFileSync(settings, 'utf8')));
console.error('docs/errors.md and the docs/settings.md table regenerated');
