import { readFileSync, writeFileSync } from 'node:fs';

/**
 * `node dist/bench/flame-graph.js <profile.cpuprofile> <out.svg> [title]`: a flame graph of a
 * `node --cpu-prof` profile (what bench/profile-hit.ts leaves) as a self-contained SVG, idle time
 * left out: each frame as wide as its share of the busy samples, its callees above it, hover for
 * the figures. Frames narrower than 0.2% are not drawn.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}

const WIDTH = 1200;
const ROW = 16;
const MIN_SHARE = 0.002;

const [input, output, title = 'CPU profile'] = process.argv.slice(2);
if (!input || !output) throw new Error('usage: flame-graph.js <profile.cpuprofile> <out.svg> [title]');
const profile = JSON.parse(readFileSync(input, 'utf8')) as { nodes: ProfileNode[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const total = new Map<number, number>();
const busy = (node: ProfileNode): number => {
  if (node.callFrame.functionName === '(idle)') return 0;
  const sum = node.hitCount + (node.children ?? []).reduce((t, id) => t + busy(byId.get(id)!), 0);
  total.set(node.id, sum);
  return sum;
};
const root = profile.nodes[0]!;
const all = busy(root);

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? /\/dist\/(.+)$/.exec(url)?.[1] ?? url.replace(/^node:/, '');
  return `${functionName || '(anonymous)'}${where ? ` ${where}${url && !url.startsWith('node:') ? `:${lineNumber + 1}` : ''}` : ''}`;
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const colour = (name: string) => {
  let hash = 0;
  for (const c of name) hash = (hash * 31 + c.charCodeAt(0)) | 0;
  return `hsl(${20 + (Math.abs(hash) % 40)}, 85%, ${55 + (Math.abs(hash >> 8) % 20)}%)`;
};

interface Frame {
  x: number;
  depth: number;
  width: number;
  name: string;
  share: string;
  text: string;
}

const frames: Frame[] = [];
let depthMax = 0;
function draw(node: ProfileNode, x: number, depth: number): void {
  const width = ((total.get(node.id) ?? 0) / all) * WIDTH;
  if (width < MIN_SHARE * WIDTH) return;
  depthMax = Math.max(depthMax, depth);
  const name = node === root ? 'all busy samples' : label(node);
  const share = (((total.get(node.id) ?? 0) / all) * 100).toFixed(1);
  const chars = Math.floor((width - 6) / 6.5);
  const text = chars >= 3 ? escape(name.length > chars ? `${name.slice(0, chars - 1)}…` : name) : '';
  frames.push({ x, depth, width, name, share, text });
  let childX = x;
  for (const id of node.children ?? []) {
    const child = byId.get(id)!;
    draw(child, childX, depth + 1);
    childX += ((total.get(child.id) ?? 0) / all) * WIDTH;
  }
}
draw(root, 0, 0);

const height = (depthMax + 1) * ROW + 30;
const body = frames
  .map(({ x, depth, width, name, share, text }) => {
    const y = height - (depth + 1) * ROW;
    return `<g><title>${escape(name)} (${share}% of busy samples)</title><rect x="${x.toFixed(1)}" y="${y}" width="${width.toFixed(1)}" height="${ROW - 1}" fill="${colour(name)}"/>${text ? `<text x="${(x + 3).toFixed(1)}" y="${y + ROW - 4}">${text}</text>` : ''}</g>`;
  })
  .join('\n');
writeFileSync(
  output,
  `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="monospace" font-size="11">\n<text x="4" y="16" font-size="13">${escape(title)}</text>\n${body}\n</svg>\n`,
);
console.log(`${output}: ${frames.length} frames, ${depthMax + 1} deep`);
