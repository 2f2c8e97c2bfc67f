import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { effectiveConfig } from '../src/platform/config.js';
import { MintBody } from '../src/embed-sessions/http/embed-schemas.js';
import { ERROR_STATUS } from '../src/platform/http/error-status.js';
import { pageWithSettings } from '../scripts/docs/settings-table.js';

/**
 * README and docs claims that drift silently when code changes: the settings listed, the statuses named, the links,
 * the layout drawn. README is the guide; the reference it links to is in docs/ (settings.md, reference.md, layout.md).
 */
const page = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const readme = page('README.md');
const embedding = page('docs/embedding.md');

/** The text of `file`'s section under `heading` (up to the next heading of the same or a higher level). */
function section(heading: string, file = 'README.md'): string {
  const text = page(file);
  const start = text.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `${file} has no "${heading}" section`);
  const level = heading.split(' ')[0]!;
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return end < 0 ? rest : rest.slice(0, end);
}

describe('README', () => {
  it('lists every setting config.ts reads, in the settings table of docs/settings.md', () => {
    const table = page('docs/settings.md');
    for (const { name } of effectiveConfig({}))
      assert.match(table, new RegExp(`\\| \`${name}\` \\|`), `${name} is not in docs/settings.md's table`);
  });

  it('holds no merge conflict marker, nor does any page under docs/ (Prettier and the build read only the code)', () => {
    const docs = new URL('../../docs/', import.meta.url);
    const pages = readdirSync(docs, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.md'));
    for (const [name, text] of [['README.md', readme], ...pages.map((page) => [page, readFileSync(new URL(page, docs), 'utf8')])])
      assert.doesNotMatch(text!, /^(<{7}|>{7}) /m, `${name} holds a merge conflict marker`);
  });

  it('names only test files that exist, as does every page under docs/ (a renamed test leaves no stale citation)', () => {
    const root = new URL('../../', import.meta.url);
    const docs = new URL('docs/', root);
    const pages = readdirSync(docs, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.md'));
    const texts = [readme, ...pages.map((page) => readFileSync(new URL(page, docs), 'utf8'))];
    const cited = new Set(texts.flatMap((text) => [...text.matchAll(/\btest\/[\w./-]+\.test\.ts\b/g)].map((m) => m[0])));
    assert.ok(cited.size > 50, `only ${cited.size} citations found: the pattern no longer matches`);
    const missing = [...cited].filter((path) => !existsSync(new URL(path, root)));
    assert.deepEqual(missing, [], 'cited in README or docs/, but no such file');
  });

  it('has in docs/settings.md the table `npm run docs` generates from config.ts (run it after changing a setting)', () => {
    const settings = page('docs/settings.md');
    assert.equal(settings, pageWithSettings(settings));
  });

  it('names every status code the service answers, with its error code (docs/reference.md, Errors)', () => {
    const errors = section('### Errors', 'docs/reference.md');
    for (const [code, status] of Object.entries(ERROR_STATUS))
      assert.match(errors, new RegExp(`${status} \`${code}\``), `${status} ${code} is not in README's errors`);
  });

  it('says what the user group token is for: who holds it, what consumes it, why it never reaches a browser', () => {
    const paragraph = section('### What the user group token is for');
    assert.match(paragraph, /held by your\s+backend/);
    assert.match(paragraph, /`POST \/api\/embed_sessions`\s+with `user_group_token`/);
    assert.match(paragraph, /never reaches a\s+browser: it is a bearer secret that stays valid until you rotate/);
    // What the paragraph names is what the service takes.
    assert.ok('user_group_token' in MintBody.properties, 'POST /api/embed_sessions takes user_group_token');
    assert.match(
      embedding,
      /## The user group token and the embed token\n[\s\S]*?```\n[\s\S]*?user_group_token[\s\S]*?```/,
      'docs/embedding.md draws the flow',
    );
  });

  it('links only to files inside the repository (or to the web), never outside it, from README, CHANGELOG and docs/', () => {
    const root = new URL('../../', import.meta.url);
    const docs = readdirSync(new URL('docs/', root), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.md'));
    for (const file of ['README.md', 'CHANGELOG.md', ...docs.map((name) => `docs/${name}`)]) {
      const here = new URL(file, root);
      for (const [, target] of page(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const linked = new URL(target!.split('#')[0]!, here);
        assert.ok(linked.href.startsWith(root.href), `${file} links outside the repository: ${target}`);
        assert.ok(existsSync(linked), `${file} links to a missing file: ${target}`);
      }
    }
  });

  it('links to sections that exist: README, CHANGELOG and docs/ pages, each #anchor to a heading of its page', () => {
    const root = new URL('../../', import.meta.url);
    const slug = (heading: string) =>
      heading
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-');
    const anchorsOf = (url: URL) =>
      new Set([...readFileSync(url, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!.replace(/`/g, ''))));
    const docs = readdirSync(new URL('docs/', root), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.md'));
    for (const file of ['README.md', 'CHANGELOG.md', ...docs.map((name) => `docs/${name}`)]) {
      const here = new URL(file, root);
      for (const [, target] of page(file).matchAll(/\]\(([^)\s]*#[^)\s]+)\)/g)) {
        if (/^https?:/.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string];
        const linked = path === '' ? here : new URL(path, here);
        if (!linked.pathname.endsWith('.md')) continue;
        assert.ok(anchorsOf(linked).has(anchor), `${file} links to #${anchor}, which ${path || file} has no heading for`);
      }
    }
  });

  it('says the project is licensed under Apache-2.0: LICENSE holds the license, package.json names it, README says so', () => {
    const license = page('LICENSE');
    assert.match(license, /^\s*Apache License\n\s*Version 2\.0, January 2004\n/);
    assert.match(license, /END OF TERMS AND CONDITIONS/);
    assert.equal((JSON.parse(page('package.json')) as { license: string }).license, 'Apache-2.0');
    assert.equal((JSON.parse(page('packages/dashboard/package.json')) as { license: string }).license, 'Apache-2.0');
    assert.match(section('## License'), /\[Apache License 2\.0\]\(LICENSE\)/);
  });

  it('opens with what it is, what you bring and what it gives, and the flow drawn, before the Quick start', () => {
    const opening = readme.slice(0, readme.indexOf('\n## Quick start\n'));
    for (const said of [
      /tenant and session service of an embedded-analytics setup/,
      /You bring the dashboards/,
      /\*\*embed sessions\*\*/,
      /self-hosted/,
    ])
      assert.match(opening, said);
    assert.match(
      opening,
      /```text\n[\s\S]*your backend[\s\S]*user group service[\s\S]*browser[\s\S]*dashboard layer[\s\S]*your databases[\s\S]*```/,
    );
    assert.ok(readme.split('\n').length < 250, 'README stays a guide: the reference is in docs/');
  });

  it('draws src/ as it is in docs/layout.md: every folder of src/ and its adapter subfolders, and no folder that is not there', async () => {
    const tree = page('docs/layout.md');
    const src = fileURLToPath(new URL('../../src/', import.meta.url));
    const drawn = new Set([...tree.matchAll(/^ {2}([a-z-]+)\/ /gm)].map((m) => m[1]!));
    // Folders git tracks: a checkout keeps no empty one, a working tree may.
    const folders = readdirSync(src, { withFileTypes: true })
      .filter((e) => e.isDirectory() && readdirSync(join(src, e.name), { recursive: true }).length > 0)
      .map((e) => e.name);
    assert.deepEqual([...drawn].sort(), folders.sort(), 'the top-level folders drawn are the folders of src/');
    // The layers, as eslint.config.js holds imports to them: stated as an order, and drawn in it.
    const { LAYERS } = (await import(pathToFileURL(fileURLToPath(new URL('../../eslint.config.js', import.meta.url))).href)) as {
      LAYERS: string[];
    };
    assert.ok(tree.includes(`\n\n${LAYERS.join(' < ')}\n\n`), `Layout does not state the layer order, ${LAYERS.join(' < ')}`);
    assert.deepEqual([...drawn], LAYERS, 'Layout draws the folders in the layer order (LAYERS in eslint.config.js), lowest first');
    for (const folder of folders) {
      for (const sub of readdirSync(join(src, folder), { withFileTypes: true }).filter((e) => e.isDirectory())) {
        if (['http', 'pages', 'delivery', 'file', 'check'].includes(sub.name)) {
          const entry = tree.slice(tree.search(new RegExp(`^ {2}${folder}/ `, 'm'))).split(/\n {2}[a-z]/)[0]!;
          assert.match(entry, new RegExp(`\\b${sub.name}/`), `Layout's ${folder}/ does not mention its ${sub.name}/`);
        }
      }
    }
  });
});
