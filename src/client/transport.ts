/** One HTTP exchange as the client needs it. */
export interface WireRequest {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | undefined>;
  text: string;
}

export type Transport = (request: WireRequest) => Promise<WireResponse>;

/** fetch: everywhere, but it cannot send a body with GET (the client then uses the query string). */
export const fetchTransport: Transport = async (request) => {
  const response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body });
  return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
};

/**
 * node:http: sends GET bodies exactly as the service's spec shows them, and the path as written (a URL
 * object would resolve the `%2E%2E` segment of the id `..` away: see pathSegment). Node only.
 */
export const nodeTransport: Transport = async (request) => {
  const http = await import('node:http');
  const https = await import('node:https');
  const { urlToHttpOptions } = await import('node:url');
  const target = new URL(request.url);
  const send = target.protocol === 'https:' ? https.request : http.request;
  const path = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*([^#]*)/i.exec(request.url)?.[1] || '/';
  return new Promise((resolve, reject) => {
    const headers = {
      ...request.headers,
      ...(request.body !== undefined && { 'content-length': String(Buffer.byteLength(request.body)) }),
    };
    const req = send({ ...urlToHttpOptions(target), path, method: request.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const flat: Record<string, string | undefined> = {};
        for (const [name, value] of Object.entries(res.headers)) flat[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: res.statusCode ?? 0, headers: flat, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(request.body);
  });
};

/** Whether this runtime is Node.js (where GET bodies can be sent). */
export function isNode(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.node === 'string';
}
