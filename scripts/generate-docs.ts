import { readFileSync, writeFileSync } from 'node:fs';
import { errorsDoc } from './docs/errors-doc.js';
import { readmeWithSettings } from './docs/settings-table.js';

/**
 * `npm run docs`: rewrites the generated parts of the docs (docs/errors.md, README's settings table) from
 * the code that owns those facts. test/platform/http/error-status.http-layer.test.ts and test/readme.test.ts fail when the
 * checked-in files differ.
 */
const root = new URL('../../', import.meta.url);
writeFileSync(new URL('docs/errors.md', root), errorsDoc());
const readme = new URL('README.md', root);
writeFileSync(readme, readmeWithSettings(readFileSync(readme, 'utf8')));
console.error('docs/errors.md and README.md settings table regenerated');
