import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { contractViolation } from './openapi-contract.js';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body; throws if the body is not JSON so tests notice. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Sent as is when a string or Buffer, JSON-encoded otherwise; GET included (fetch cannot do that). */
  body?: unknown;
  /** For pages the OpenAPI document does not describe (the console): the answer is not checked against it. */
  outsideContract?: boolean;
}

/**
 * One request over a real socket with node:http, so GET bodies reach the server exactly as curl sends them.
 * Rejects when the answer breaks the OpenAPI document of the app that gave it (openapi-contract.ts).
 */
export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const url = new URL(req.path, baseUrl);
  const payload =
    req.body === undefined ? undefined : typeof req.body === 'string' || Buffer.isBuffer(req.body) ? req.body : JSON.stringify(req.body);
  const headers: Record<string, string> = { ...req.headers };
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  return new Promise((resolve, reject) => {
    const r = httpRequest(url, { method: req.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          const violation = req.outsideContract
            ? undefined
            : contractViolation(url, req.method, { status: res.statusCode ?? 0, headers: res.headers, text });
          if (violation !== undefined) return reject(new Error(violation));
        } catch (error) {
          return reject(error as Error);
        }
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text,
          get json() {
            return JSON.parse(text);
          },
        });
      });
      res.on('error', reject);
    });
    r.on('error', reject);
    if (payload !== undefined) r.write(payload);
    r.end();
  });
}

/** Writes raw bytes on a fresh connection and returns everything the server sent until the connection closed. */
export function rawExchange(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** A client bound to one server and one API key, for the common JSON calls. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly key: string | undefined,
  ) {}

  call(method: string, body?: unknown, extra: { path?: string; headers?: Record<string, string> } = {}): Promise<RawResponse> {
    const headers: Record<string, string> = { ...(body !== undefined && { 'content-type': 'application/json' }) };
    if (this.key !== undefined) headers.authorization = `Token ${this.key}`;
    return rawRequest(this.baseUrl, { method, path: extra.path ?? '/api/user', headers: { ...headers, ...extra.headers }, body });
  }

  getOrCreate(body: unknown) {
    return this.call('GET', body);
  }
  update(body: unknown) {
    return this.call('PUT', body);
  }
  rotate(currentToken: unknown) {
    return this.call('POST', { current_token: currentToken });
  }
}
