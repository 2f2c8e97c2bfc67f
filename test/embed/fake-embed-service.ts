import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterEach, beforeEach } from 'node:test';
import { createEmbedVerifier, type EmbedVerifier, type EmbedVerifierOptions } from 'user-group-service/embed';

/**
 * The service's half of the embed wire (docs: /work/briefs/embed-wire.md) as
 * a real HTTP server on 127.0.0.1: the JWKS and the revocation feed, with the
 * request counts the verifier tests assert on. The server side proper is
 * built elsewhere; this one lets the verifier be tested on its own.
 */

export type EmbedAlg = 'EdDSA' | 'ES256' | 'RS256';
export const EMBED_ALGS: EmbedAlg[] = ['EdDSA', 'ES256', 'RS256'];
export const FEED_API_KEY = `ugsk_${randomBytes(16).toString('hex')}`;

export interface SigningKey {
  readonly alg: EmbedAlg;
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly publicJwk: JWK;
}

export async function generateSigningKey(alg: EmbedAlg, kid = `${alg}-${randomBytes(4).toString('hex')}`): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, kid, privateKey, publicKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export interface WireRevocation {
  session_id: string | null;
  user_group_id: string | null;
  token_version: string | null;
  viewer_id: string | null;
  reason: string;
  revoked_at: string;
  expires_at: string;
}

/** Claims as the service mints them; `undefined` in overrides removes a claim. */
export function embedClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    iss: 'user-group-service',
    aud: 'embedded-dashboards',
    sub: 'acme',
    env: 'Customer',
    tid: 7,
    name: 'Acme',
    map: { sales: 'eu_warehouse' },
    props: { region: 'eu', tier: 2 },
    tv: randomBytes(12).toString('base64url'),
    jti: randomBytes(12).toString('base64url'),
    iat: now,
    exp: now + 600,
    ...overrides,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return claims;
}

export function signEmbedToken(
  key: SigningKey,
  claims: Record<string, unknown> = embedClaims(),
  header: Record<string, unknown> = {},
): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'embed+jwt', ...header }).sign(key.privateKey);
}

export class FakeEmbedService {
  readonly published: SigningKey[] = [];
  /** Testing's keys, published apart at /.well-known/jwks-testing.json as the service does. */
  readonly publishedTesting: SigningKey[] = [];
  readonly revocations: WireRevocation[] = [];
  jwksRequests = 0;
  feedRequests = 0;
  /** When set, the feed answers 503 (the JWKS still answers). */
  feedDown = false;
  /** When set, the feed answers this status, as the service would (401: an unknown or revoked key; 429: throttled). */
  feedFailure: 401 | 403 | 429 | undefined;
  /** When set, the JWKS answers 503. */
  jwksDown = false;
  /** The environment the feed names (the API key's); undefined leaves the field out, as a malformed answer would. */
  environment: 'Customer' | 'Testing' | undefined = 'Customer';

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** On a free port, or on `port` (to bring back a service a test closed). */
  static async start(port = 0): Promise<FakeEmbedService> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const service = new FakeEmbedService(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => service.handle(req, res));
    return service;
  }

  publish(key: SigningKey): void {
    this.published.push(key);
  }

  revoke(entry: Partial<WireRevocation> & ({ user_group_id: string } | { viewer_id: string })): void {
    const now = Date.now();
    this.revocations.push({
      session_id: null,
      user_group_id: null,
      token_version: null,
      viewer_id: null,
      reason: entry.session_id ? 'session_revoked' : entry.viewer_id ? 'viewer_revoked' : 'token_rotated',
      revoked_at: new Date(now).toISOString(),
      expires_at: new Date(now + 3600_000).toISOString(),
      ...entry,
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    if (req.method === 'GET' && url.pathname === '/.well-known/jwks.json') {
      this.jwksRequests++;
      if (this.jwksDown) return send(res, 503, failure('unavailable', 'down for the test'));
      return send(res, 200, { keys: this.published.map((key) => key.publicJwk) });
    }
    if (req.method === 'GET' && url.pathname === '/.well-known/jwks-testing.json') {
      return send(res, 200, { keys: this.publishedTesting.map((key) => key.publicJwk) });
    }
    if (req.method === 'GET' && url.pathname === '/api/embed_sessions/revocations') {
      this.feedRequests++;
      return this.feed(req, url, res);
    }
    send(res, 404, failure('not_found', 'no such route'));
  }

  /** The cursor is the index of the next entry, opaque to the verifier. */
  private feed(req: IncomingMessage, url: URL, res: ServerResponse): void {
    if (this.feedDown) return send(res, 503, failure('unavailable', 'the store is unavailable'));
    if (this.feedFailure !== undefined)
      return send(res, this.feedFailure, failure(FAILURE_CODES[this.feedFailure], `answering ${this.feedFailure} for the test`));
    if (req.headers.authorization !== `Bearer ${FEED_API_KEY}`)
      return send(res, 401, failure('unauthenticated', 'a valid API key is required'));
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const after = url.searchParams.get('after');
    const from = after === null ? 0 : Number(after.replace(/^c/, ''));
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000 || !Number.isInteger(from) || from < 0 || from > this.revocations.length) {
      return send(res, 400, failure('invalid_request', 'bad limit or cursor'));
    }
    const page = this.revocations.slice(from, from + limit);
    send(res, 200, { success: 1, environment: this.environment, revocations: page, next_cursor: `c${from + page.length}` });
  }
}

const FAILURE_CODES = { 401: 'unauthenticated', 403: 'forbidden', 429: 'rate_limited' } as const;

function failure(code: string, message: string) {
  return { success: 0, error: { code, message, request_id: randomBytes(4).toString('hex') } };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Resolves once check() holds; fails after boundMs (generous: the machine is shared). */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, boundMs = 20_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A fresh fake service per test, with one published EdDSA key, and the verifiers a test makes against
 * it (closed after each test): `defaults` are the verifier options every test of the file shares. A
 * service per test, so that a request a closed verifier had already sent never counts in the next test.
 */
export function verifierFixture(defaults: Partial<EmbedVerifierOptions>) {
  const verifiers: EmbedVerifier[] = [];
  const fixture = {
    service: undefined as unknown as FakeEmbedService,
    key: undefined as unknown as SigningKey,
    verifierWith(options: Partial<EmbedVerifierOptions> = {}): EmbedVerifier {
      const verifier = createEmbedVerifier({ serviceUrl: fixture.service.url, ...defaults, ...options });
      verifiers.push(verifier);
      return verifier;
    },
  };
  beforeEach(async () => {
    fixture.service = await FakeEmbedService.start();
    fixture.key = await generateSigningKey('EdDSA');
    fixture.service.publish(fixture.key);
  });
  afterEach(async () => {
    for (const verifier of verifiers.splice(0)) await verifier.close();
    await fixture.service.close();
  });
  return fixture;
}
