import { createServer } from 'node:http';

/**
 * The machine's ceiling for one scenario: a bare node:http server that reads
 * each request body and answers with the exact bytes (status, headers, body)
 * the real service gave for that scenario. Run as its own process, like the
 * service, so both compete with the load generator in the same way.
 * Input on stdin: {"status":200,"headers":{...},"body":"..."}; prints its port.
 */
const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const reply = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { status: number; headers: Record<string, string>; body: string };
const body = Buffer.from(reply.body);
const headers = { ...reply.headers, 'content-length': String(body.length) };

const server = createServer((request, response) => {
  request.on('data', () => {});
  request.on('end', () => {
    response.writeHead(reply.status, headers);
    response.end(body);
  });
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
