import cluster from 'node:cluster';
import { createServer } from 'node:http';

/**
 * The machine's ceiling for one scenario: a bare node:http server that reads
 * each request body and answers with the exact bytes (status, headers, body)
 * the real service gave for that scenario. Run as its own process, like the
 * service, so both compete with the load generator in the same way, and with
 * as many processes as the service has workers (WORKERS, default 1), so both
 * sides may use the same cores.
 * Input on stdin: {"status":200,"headers":{...},"body":"..."}; prints its port.
 */
const workers = Number(process.env.WORKERS ?? '1');

if (cluster.isPrimary) {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const reply = Buffer.concat(chunks).toString('utf8');
  if (workers > 1) {
    cluster.once('listening', (_worker, address) => announce(address.port));
    for (let i = 0; i < workers; i++) cluster.fork({ CEILING_REPLY: reply });
    process.on('SIGTERM', () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
      cluster.on('exit', () => Object.keys(cluster.workers ?? {}).length === 0 && process.exit(0));
    });
  } else {
    serve(reply, announce);
  }
} else {
  serve(process.env.CEILING_REPLY!, () => {});
}

function serve(replyJson: string, onListening: (port: number) => void): void {
  const reply = JSON.parse(replyJson) as { status: number; headers: Record<string, string>; body: string };
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
    onListening(typeof address === 'object' && address ? address.port : 0);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

function announce(port: number): void {
  process.stdout.write(`${JSON.stringify({ port })}\n`);
}
