import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AUDIT_ACTIONS } from '../../src/audit/audit.js';
import { EVENT_TYPES } from '../../src/events/event.js';

const SRC = fileURLToPath(new URL('../../../src', import.meta.url));

/** The stores' source files, wherever they sit: under a folder named store, sqlite or postgres. */
function storeFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return storeFiles(path);
    return entry.name.endsWith('.ts') && /(^|\/)(store|sqlite|postgres)\//.test(relative(SRC, path)) ? [path] : [];
  });
}

describe("a write's consequences are decided in the domain (src/<concept>/*-consequences.ts)", () => {
  const files = storeFiles().map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));

  it("finds the stores' files", () => {
    assert.ok(files.some((f) => f.path.endsWith('sqlite-user-groups.ts')) && files.some((f) => f.path.endsWith('postgres-statements.ts')));
    assert.ok(
      files.some((f) => f.path.endsWith('sql/sql-api-keys.ts')),
      'the areas written once, in src/store/sql/',
    );
  });

  it('no store file names an event type or an audit action, in TypeScript or in SQL: adding one touches no store', () => {
    const names = [...new Set<string>([...EVENT_TYPES, ...AUDIT_ACTIONS])];
    for (const { path, text } of files) {
      for (const name of names) {
        for (const quote of ["'", '"', '`']) assert.ok(!text.includes(`${quote}${name}${quote}`), `${path} names ${name}`);
      }
    }
  });

  it("no store file imports a concept's consequences: the service builds them and hands them to the store", () => {
    const hotPath = files.filter((f) =>
      /(^|\/)(sqlite|postgres)-(user-groups|group-hierarchy|embed-sessions|write-batches|statements)\.ts$/.test(f.path),
    );
    assert.equal(hotPath.length, 8, `the user-group and embed-session stores: ${hotPath.map((f) => f.path).join(', ')}`);
    for (const { path, text } of files) {
      for (const imported of text.matchAll(/from '([^']*-consequences\.js)'/g)) {
        const target = join(dirname(path), imported[1]!);
        // The shared shape (WriteConsequences), wherever it sits, and a store's own appender are no concept's.
        assert.ok(target.startsWith('store/') || target.endsWith('/write-consequences.js'), `${path} imports ${imported[1]}`);
      }
    }
  });

  it('only the consequence appenders write events and revocation feed entries', () => {
    for (const { path, text } of files) {
      if (/-consequences\.ts$/.test(path)) continue;
      assert.doesNotMatch(text, /INSERT INTO (events|embed_revocations)\b/, path);
      // An audit record is written as given; the one other INSERT is the import's, which copies records with their ids.
      for (const insert of text.matchAll(/INSERT INTO audit_log \(([^)]*)\)/g))
        assert.match(insert[1]!, /^id, /, `${path} appends audit records of its own`);
    }
  });
});
