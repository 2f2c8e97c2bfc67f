import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { coreToOtherAdapters, cyclicGroups, importsOf, LAYERS, topFolders, topOf, upwardImports } from './import-graph.js';

/**
 * The import graph of src/ against the layer order (LAYERS in eslint.config.js, drawn in README's Layout): what
 * ESLint's zones check one import at a time, seen whole. `node dist/test/architecture/import-graph.js [src]` prints it.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SRC = join(ROOT, 'src');
const imports = importsOf(SRC);

/** Imports that run back up the order, at most (issue 38): each one is listed when there are more. */
const MAX_UPWARD = 10;

const listed = (found: readonly { from: string; to: string }[]) => found.map(({ from, to }) => `\n  ${from} -> ${to}`).join('');

describe('the import graph of src/ (README, Layout; LAYERS in eslint.config.js)', () => {
  it('reads the imports (a check that found none would prove nothing)', () => {
    assert.ok(imports.length > 500, `only ${imports.length} imports found`);
    assert.ok(imports.some(({ from, to }) => from === 'app/core.ts' && to === 'store/open-store.ts'));
  });

  it('places every top folder of src/ in the layer order (README draws it: test/readme.test.ts)', () => {
    const unplaced = topFolders(SRC).filter((folder) => !LAYERS.includes(folder));
    assert.deepEqual(unplaced, [], 'top folders of src/ that LAYERS in eslint.config.js does not place');
  });

  it('has no loop between top folders', () => {
    const groups = cyclicGroups(imports);
    // Of each loop, the imports that run up the order: the ones to cut (or the order to change).
    const toCut = (group: string[]) =>
      upwardImports(imports, LAYERS).filter(({ from, to }) => group.includes(topOf(from)) && group.includes(topOf(to)));
    assert.deepEqual(
      groups,
      [],
      groups.map((group) => `folders importing each other: ${group.join(', ')}, through${listed(toCut(group))}`).join('\n'),
    );
  });

  it("has no concept core (a file directly in a concept's folder) importing another concept's adapter (http/, pages/, delivery/, file/)", () => {
    const crossing = coreToOtherAdapters(imports);
    assert.deepEqual(crossing, [], `a core imports another concept's adapter:${listed(crossing)}`);
  });

  it('has no concept, store or platform file importing the composition root (src/app/): nothing is handed the core but the root', () => {
    const intoRoot = imports.filter(({ from, to }) => topOf(to) === 'app' && !['app', 'cli', '(root)'].includes(topOf(from)));
    assert.deepEqual(intoRoot, [], `imports of src/app/ from below it:${listed(intoRoot)}`);
  });

  it(`has at most ${MAX_UPWARD} imports that run back up a layer`, (t) => {
    const upward = upwardImports(imports, LAYERS);
    t.diagnostic(`${upward.length} import(s) up a layer${listed(upward)}`);
    assert.ok(upward.length <= MAX_UPWARD, `${upward.length} imports run up a layer (at most ${MAX_UPWARD}):${listed(upward)}`);
  });
});
