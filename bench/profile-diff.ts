import { readFileSync } from 'node:fs';

/**
 * `node dist/bench/profile-diff.js <a.cpuprofile> <a CPU µs/req> <b.cpuprofile> <b CPU µs/req> [rows]`: two
 * profiles of `profile-hit.js` side by side (say, the framework floor and the service's hit), self time per
 * function in µs per request (each profile's busy samples spread over the CPU µs per request that profile-hit
 * printed for it), largest differences first: what each microsecond of one costs beyond the other.
 */
interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount: number }[];
}

function selfMicros(file: string, cpuMicrosPerRequest: number): Map<string, number> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const self = new Map<string, number>();
  let busy = 0;
  for (const { callFrame, hitCount } of profile.nodes) {
    if (callFrame.functionName === '(idle)' || hitCount === 0) continue;
    busy += hitCount;
    const where = callFrame.url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, '');
    const name = `${callFrame.functionName || '(anonymous)'} ${where}${where && !where.startsWith('node:') ? `:${callFrame.lineNumber + 1}` : ''}`;
    self.set(name, (self.get(name) ?? 0) + hitCount);
  }
  return new Map([...self].map(([name, hits]) => [name, (hits / busy) * cpuMicrosPerRequest]));
}

const [fileA, microsA, fileB, microsB, rows = '40'] = process.argv.slice(2);
if (!fileA || !fileB || !Number(microsA) || !Number(microsB))
  throw new Error('usage: profile-diff.js <a.cpuprofile> <a CPU µs/req> <b.cpuprofile> <b CPU µs/req> [rows]');
const a = selfMicros(fileA, Number(microsA));
const b = selfMicros(fileB, Number(microsB));
const names = [...new Set([...a.keys(), ...b.keys()])];
const diffs = names
  .map((name) => ({ name, a: a.get(name) ?? 0, b: b.get(name) ?? 0 }))
  .sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a));
console.log(`| function (self time) | a µs/req | b µs/req | b − a |\n| --- | --- | --- | --- |`);
for (const { name, a: x, b: y } of diffs.slice(0, Number(rows)))
  console.log(`| ${name} | ${x.toFixed(2)} | ${y.toFixed(2)} | ${(y - x).toFixed(2)} |`);
console.log(
  `| total | ${Number(microsA).toFixed(1)} | ${Number(microsB).toFixed(1)} | ${(Number(microsB) - Number(microsA)).toFixed(1)} |`,
);
