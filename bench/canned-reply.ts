/** The answer a ceiling-like server gives every request, as the benchmark passes it on stdin. */
export interface CannedReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Standard input, whole: the canned reply's JSON. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** What the benchmark waits for in the server's output. */
export function announcePort(port: number): void {
  process.stdout.write(`${JSON.stringify({ port })}\n`);
}
