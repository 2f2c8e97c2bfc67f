import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { announcePort, readStdin, type CannedReply } from './canned-reply.js';

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
  const reply = await readStdin();
  if (workers > 1) {
    cluster.once('listening', (_worker, address) => announcePort(address.port));
    for (let i = 0; i < workers; i++) cluster.fork({ CEILING_REPLY: reply });
    process.on('SIGTERM', () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
      cluster.on('exit', () => Object.keys(cluster.workers ?? {}).length === 0 && process.exit(0));
    });
  } else {
    serve(reply, announcePort);
  }
} else {
  serve(process.env.CEILING_REPLY!, () => {});
}

function serve(replyJson: string, onListening: (port: number) => void): void {
  const reply = JSON.parse(replyJson) as CannedReply;
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
