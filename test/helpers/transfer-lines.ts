/** An export's lines, as `ugs export` writes them (without their newline). */
export async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line.trimEnd());
  return out;
}

/** What an import reads: the lines again, as often as asked. */
export const from = (lines: string[]) => () =>
  (async function* () {
    yield* lines;
  })();

export const parsed = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown> & { type: string });
