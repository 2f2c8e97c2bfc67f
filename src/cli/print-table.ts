import type { CliOutput } from './cli-output.js';

/** Prints rows as aligned columns under an upper-case header. */
export function printTable(rows: Record<string, string>[], output: Pick<CliOutput, 'log'>): void {
  const first = rows[0];
  if (!first) return;
  const columns = Object.keys(first);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  output.log(line(columns.map((c) => c.toUpperCase())));
  for (const row of rows) output.log(line(columns.map((c) => row[c] ?? '')));
}
