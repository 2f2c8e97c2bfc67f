import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSourceConnection } from './tenant-databases.js';

/**
 * GET /api/data_sources/{id}/credentials as the service answers a `dashboard` key (docs/data-sources.md), on a
 * real HTTP server on 127.0.0.1, with what the real service cannot be made to do on demand: answer late, answer
 * 503, answer malformed. The router's tests that are about the service's failures use it; every other test runs
 * against the service itself.
 */

export const DASHBOARD_KEY = `ugsk_${randomBytes(16).toString('hex')}`;

interface StoredDataSource {
  environment: 'Customer' | 'Testing';
  kind: string;
  version: number;
  connection: DataSourceConnection;
}

/** What the fake answers instead of the data source: a status and a body (a string is sent as is). */
export interface CannedAnswer {
  status: number;
  body: unknown;
}

export class FakeDataSourceService {
  /** Requests per data source id. */
  readonly requests = new Map<string, number>();
  /** When set, every answer waits for this promise first. */
  hold: Promise<void> | undefined;
  /** When set, answered instead of the data source. */
  canned: CannedAnswer | undefined;
  private readonly sources = new Map<string, StoredDataSource>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeDataSourceService> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const service = new FakeDataSourceService(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => void service.handle(req, res));
    return service;
  }

  /** Creates or replaces a data source; its version moves on by one. */
  put(id: string, connection: DataSourceConnection, more: { environment?: 'Customer' | 'Testing'; kind?: string } = {}): void {
    const version = (this.sources.get(id)?.version ?? 0) + 1;
    this.sources.set(id, { environment: more.environment ?? 'Customer', kind: more.kind ?? 'postgresql', version, connection });
  }

  remove(id: string): void {
    this.sources.delete(id);
  }

  requestsFor(id: string): number {
    return this.requests.get(id) ?? 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const match = /^\/api\/data_sources\/([^/]+)\/credentials$/.exec(new URL(req.url ?? '/', this.url).pathname);
    if (req.method !== 'GET' || match === null) return send(res, 404, failure('not_found', 'no such route'));
    const id = decodeURIComponent(match[1]!);
    this.requests.set(id, this.requestsFor(id) + 1);
    await this.hold;
    if (this.canned !== undefined) return send(res, this.canned.status, this.canned.body);
    if (req.headers.authorization !== `Bearer ${DASHBOARD_KEY}`)
      return send(res, 401, failure('unauthenticated', 'a valid API key is required'));
    const source = this.sources.get(id);
    if (source === undefined) return send(res, 404, failure('not_found', `no data source "${id}"`));
    const { environment, kind, version, connection } = source;
    send(res, 200, { success: 1, data_source: { id, api_environment_tag: environment, kind, version, connection } });
  }
}

export function failure(code: string, message: string) {
  return { success: 0, error: { code, message, request_id: randomBytes(4).toString('hex') } };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
}
