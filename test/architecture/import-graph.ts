import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The layers of src/, lowest first, as `LAYERS` in eslint.config.js names them (its import zones hold each folder to
 * them): a file may import its own folder and the folders below it. '(root)', a file directly in src/ (the package's
 * entry point), is above them all.
 */
export const LAYERS: readonly string[] = [
  ...((await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as { LAYERS: string[] }).LAYERS,
  '(root)',
];

/**
 * The concepts, as `CONCEPTS` in eslint.config.js names them: each holds its core (model, port, service) directly and
 * its adapters in the subfolders below (kernel/ and consequences/ hold cores only).
 */
export const CONCEPTS: readonly string[] = ((await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as { CONCEPTS: string[] })
  .CONCEPTS;
export const ADAPTER_FOLDERS = ['http', 'pages', 'delivery', 'file', 'check'] as const;

/** One relative import of one file of src/ (both as paths under src/, with '/' and '.ts'). */
export interface Import {
  from: string;
  to: string;
}

/** Every relative import (static, re-export, dynamic, type-only) of every .ts file under `src`. */
export function importsOf(src: string): Import[] {
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const found: Import[] = [];
  for (const file of files) {
    const from = file.split(sep).join('/');
    const { importedFiles } = ts.preProcessFile(readFileSync(join(src, file), 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const to = posix.normalize(posix.join(posix.dirname(from), fileName)).replace(/\.js$/, '.ts');
      found.push({ from, to });
    }
  }
  return found.sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/** The top folder of a path under src/, or '(root)' for a file directly in src/. */
export function topOf(path: string): string {
  return path.includes('/') ? path.slice(0, path.indexOf('/')) : '(root)';
}

/** The top folders of src/ that hold a file. */
export function topFolders(src: string): string[] {
  return readdirSync(src, { withFileTypes: true })
    .filter((e) => e.isDirectory() && readdirSync(join(src, e.name), { recursive: true }).length > 0)
    .map((e) => e.name)
    .sort();
}

/** The folders that import each other in a loop (strongly connected groups of more than one), each sorted. */
export function cyclicGroups(imports: readonly Import[]): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    const a = topOf(from);
    const b = topOf(to);
    if (a === b) continue;
    if (!edges.has(a)) edges.set(a, new Set());
    if (!edges.has(b)) edges.set(b, new Set());
    edges.get(a)!.add(b);
  }
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return groups;
}

/** The imports from a folder to a folder of a higher layer (a folder not in LAYERS counts as the highest). */
export function upwardImports(imports: readonly Import[], layers: readonly string[]): Import[] {
  const rank = (path: string) => {
    const i = layers.indexOf(topOf(path));
    return i < 0 ? layers.length : i;
  };
  return imports.filter(({ from, to }) => rank(from) < rank(to));
}

/** A concept's core: a file directly in a concept's folder. */
export function isConceptCore(path: string): boolean {
  const parts = path.split('/');
  return parts.length === 2 && CONCEPTS.includes(parts[0]!);
}

/** A concept's adapter: a file under a concept's http/, pages/, delivery/ or file/. */
export function isConceptAdapter(path: string): boolean {
  const parts = path.split('/');
  return parts.length > 2 && CONCEPTS.includes(parts[0]!) && (ADAPTER_FOLDERS as readonly string[]).includes(parts[1]!);
}

/** The imports from a concept's core to an adapter of another concept. */
export function coreToOtherAdapters(imports: readonly Import[]): Import[] {
  return imports.filter(({ from, to }) => isConceptCore(from) && isConceptAdapter(to) && topOf(from) !== topOf(to));
}

/** The imports between two top folders, as `from -> to` pairs of folders with how many imports each. */
export function folderEdges(imports: readonly Import[]): Map<string, Map<string, number>> {
  const edges = new Map<string, Map<string, number>>();
  for (const { from, to } of imports) {
    const a = topOf(from);
    const b = topOf(to);
    if (a === b) continue;
    const out = edges.get(a) ?? new Map<string, number>();
    out.set(b, (out.get(b) ?? 0) + 1);
    edges.set(a, out);
  }
  return edges;
}

/** What the graph looks like, as the test and `node dist/test/architecture/import-graph.js <src>` print it. */
export function describeGraph(src: string): string {
  const imports = importsOf(src);
  const groups = cyclicGroups(imports);
  const upward = upwardImports(imports, LAYERS);
  const crossing = coreToOtherAdapters(imports);
  const lines = [
    `${topFolders(src).length} top folders; ${groups.length} cyclic group(s)${groups.map((g) => ` [${g.length}: ${g.join(', ')}]`).join('')}`,
    `${upward.length} import(s) up a layer (order: ${LAYERS.join(' < ')})`,
    ...upward.map(({ from, to }) => `  ${from} -> ${to}`),
    `${crossing.length} import(s) from a concept's core to another concept's adapter`,
    ...crossing.map(({ from, to }) => `  ${from} -> ${to}`),
  ];
  return lines.join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const src = process.argv[2] ?? join(ROOT, 'src');
  console.log(describeGraph(src));
}
