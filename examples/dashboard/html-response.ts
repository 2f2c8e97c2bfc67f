import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What both example servers share: escaping, one HTML page shell, a node:http
 * server that can be stopped at once. Plain node:http, so the example shows
 * the embedding and nothing of a framework.
 */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A whole page; `body` is HTML already escaped. No inline script or style: each server's CSP forbids both. */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/style.css">
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** The headers every page of both servers carries: nothing cached (pages hold tokens), no Referer (URLs hold tokens). */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
} as const;

export function sendPage(res: ServerResponse, status: number, html: string, csp: string): void {
  res.writeHead(status, { ...PAGE_HEADERS, 'content-security-policy': csp }).end(html);
}

export function sendStylesheet(res: ServerResponse, css: string): void {
  sendAsset(res, 'text/css; charset=utf-8', css);
}

export function sendScript(res: ServerResponse, js: string): void {
  sendAsset(res, 'text/javascript; charset=utf-8', js);
}

function sendAsset(res: ServerResponse, type: string, body: string): void {
  res.writeHead(200, { 'content-type': type, 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' }).end(body);
}

export function sendNotFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
}

export interface RunningServer {
  /** The port it listens on (the one asked for, or the one the system chose for 0). */
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on host:port; a handler that throws answers 500 instead of taking the process down. */
export async function listen(
  host: string,
  port: number,
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<RunningServer> {
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('example server:', error instanceof Error ? error.message : error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Internal error\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
