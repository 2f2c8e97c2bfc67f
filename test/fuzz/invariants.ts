import { randomBytes } from 'node:crypto';
import { apiKeyFormat } from '../../src/api-keys/api-key.js';
import { ERROR_CODES } from '../../src/kernel/errors.js';
import { ERROR_STATUS } from '../../src/platform/http/error-status.js';
import { rawRequest, type RawResponse } from '../helpers/http-client.js';
import { POLLUTION_MARKERS, type FuzzOutcome, type FuzzRequest } from './http-arbitraries.js';

/**
 * What must hold for every request, however hostile:
 * - never a 5xx;
 * - every answer has an X-Request-Id;
 * - every non-2xx is `application/json` with `{"success":0,"error":{"code","message","request_id"}}`,
 *   the code one of ERROR_CODES, with the status docs/errors.md gives it;
 * - every 2xx is JSON with `success: 1`;
 * - a connection the server closes without an answer (malformed HTTP) is
 *   acceptable only if the server is still up afterwards.
 * Plus, around a whole run: the snapshot groups are unchanged, nothing was
 * planted on Object.prototype, and the server still answers /healthz.
 */

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/**
 * Routes whose successful answers are not API answers (Prometheus text, the
 * OpenAPI document, Swagger UI): their 2xx (and Swagger UI's redirects) are
 * not held to the envelope. Their errors are.
 */
const NON_API_SUCCESS = /^\/(metrics|openapi\.json|docs)(\/|$)/;

function decodedPathname(path: string): string {
  const pathname = new URL(path, 'http://127.0.0.1').pathname;
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/** The invariants one response breaks; empty when it is fine. HEAD answers have no body, so only their headers are checked. */
export function responseViolations(req: Pick<FuzzRequest, 'method' | 'path'>, res: RawResponse): string[] {
  const broken: string[] = [];
  if (res.status >= 500) broken.push(`5xx: status ${res.status}`);
  if (res.status < 200) broken.push(`unexpected status ${res.status}`);
  if (typeof res.headers['x-request-id'] !== 'string' || res.headers['x-request-id'] === '') broken.push('no X-Request-Id');
  // Swagger UI redirects to its own pages; no API route redirects.
  if (res.status >= 300 && res.status < 400 && NON_API_SUCCESS.test(decodedPathname(req.path)) && res.headers.location !== undefined)
    return broken;
  const ok = res.status >= 200 && res.status < 300;
  const contentType = String(res.headers['content-type'] ?? '');
  if (!ok && !/^application\/json(;|$)/i.test(contentType))
    broken.push(`non-2xx with content-type ${JSON.stringify(contentType)}, not application/json`);
  if (req.method.toUpperCase() === 'HEAD') return broken;
  if (ok && NON_API_SUCCESS.test(decodedPathname(req.path))) {
    // Swagger UI serves files: never one from outside its own folder (the service's package.json, say).
    if (res.text.includes('"devDependencies"')) broken.push('a documentation route served a file it should not (package.json?)');
    return broken;
  }

  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    broken.push(`body is not JSON: ${JSON.stringify(res.text.slice(0, 100))}`);
    return broken;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    broken.push('body is not a JSON object');
    return broken;
  }
  const envelope = body as { success?: unknown; error?: { code?: unknown; message?: unknown; request_id?: unknown } };
  if (ok) {
    if (envelope.success !== 1) broken.push(`2xx without success: 1 (success is ${JSON.stringify(envelope.success)})`);
    return broken;
  }
  if (envelope.success !== 0) broken.push(`non-2xx without success: 0 (success is ${JSON.stringify(envelope.success)})`);
  const error = envelope.error;
  if (typeof error !== 'object' || error === null) {
    broken.push('non-2xx without an error object');
    return broken;
  }
  if (typeof error.code !== 'string' || !KNOWN_CODES.has(error.code))
    broken.push(`error.code ${JSON.stringify(error.code)} is not one of ERROR_CODES`);
  else if (ERROR_STATUS[error.code as keyof typeof ERROR_STATUS] !== res.status) {
    broken.push(
      `error.code ${error.code} answered with status ${res.status}, docs/errors.md says ${ERROR_STATUS[error.code as keyof typeof ERROR_STATUS]}`,
    );
  }
  if (typeof error.message !== 'string' || error.message === '') broken.push('error.message is not a non-empty string');
  if (error.request_id !== res.headers['x-request-id'])
    broken.push(`error.request_id ${JSON.stringify(error.request_id)} is not the X-Request-Id`);
  return broken;
}

/** True when GET /healthz answers 200 (tried a few times, in case the connection just closed was a keep-alive one). */
export async function serverIsUp(baseUrl: string): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const res = await rawRequest(baseUrl, { method: 'GET', path: '/healthz' });
      if (res.status === 200) return true;
    } catch {
      // retried below
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

/**
 * The invariants one request's outcome breaks. A response is checked by
 * responseViolations; a connection closed without one is fine if the server
 * still answers /healthz afterwards; a request Node refused to send is a bug of
 * the generators and reported as such.
 */
export async function outcomeViolations(baseUrl: string, req: FuzzRequest, outcome: FuzzOutcome): Promise<string[]> {
  if (outcome.response) return responseViolations(req, outcome.response);
  if (outcome.clientError)
    return [`generator bug: Node refused to send the request: ${outcome.clientError.code} ${outcome.clientError.message}`];
  const failure = outcome.connectionError!;
  if (failure.code === 'TIMEOUT') return [`no answer: ${failure.message}`];
  // Bytes after a complete `Connection: close` answer: a second response on the
  // connection. Not for HEAD: a request too malformed to parse gets its 400 with
  // a body, and Node's client, expecting none after HEAD, says the same.
  if (failure.code === 'HPE_CLOSED_CONNECTION' && req.method.toUpperCase() !== 'HEAD') {
    return [`the server wrote more after an answer with Connection: close (two answers to one request?): ${failure.message}`];
  }
  return (await serverIsUp(baseUrl)) ? [] : [`server down after the connection failed (${failure.code})`];
}

// ---------------------------------------------------------------------------
// Pollution.

/** The own property names of the built-in prototypes, to compare before and after a run. */
export function prototypeFingerprint(): string[] {
  const protos: [string, object][] = [
    ['Object', Object.prototype],
    ['Array', Array.prototype],
    ['Function', Function.prototype],
    ['String', String.prototype],
  ];
  return protos.flatMap(([name, proto]) => Reflect.ownKeys(proto).map((key) => `${name}.${String(key)}`)).sort();
}

/** In-process pollution: new properties on the built-in prototypes, or a marker visible on a fresh object. */
export function prototypeViolations(before: readonly string[]): string[] {
  const broken: string[] = [];
  const was = new Set(before);
  for (const key of prototypeFingerprint()) if (!was.has(key)) broken.push(`new prototype property ${key}`);
  const probe = {} as Record<string, unknown>;
  for (const marker of [...POLLUTION_MARKERS, 'prototype']) {
    if (probe[marker] !== undefined) broken.push(`({}).${marker} is ${JSON.stringify(probe[marker])}`);
  }
  if (Object.getPrototypeOf(probe) !== Object.prototype) broken.push('a fresh object no longer has Object.prototype as prototype');
  return broken;
}

/**
 * Pollution seen from outside (for a server in another process): a new group
 * created now answers exactly the fields it should, with none of the markers.
 */
export async function pollutionProbeViolations(baseUrl: string, apiKey: string): Promise<string[]> {
  const id = `probe-${randomBytes(8).toString('hex')}`;
  const res = await rawRequest(baseUrl, {
    method: 'GET',
    path: '/api/user',
    headers: { authorization: `Token ${apiKey}`, 'content-type': 'application/json' },
    body: { user_group_id: id, name: 'Probe', properties: { plain: 1 } },
  });
  if (res.status !== 200) return [`pollution probe: creating a group answered ${res.status} ${res.text.slice(0, 200)}`];
  const broken: string[] = [];
  const body = res.json as { user_group: Record<string, unknown> } & Record<string, unknown>;
  if (Object.keys(body).sort().join() !== 'new_user_group,success,user_group')
    broken.push(`pollution probe: top-level keys ${Object.keys(body).join()}`);
  if (Object.keys(body.user_group).sort().join() !== 'name,properties,provided_id,team_id,token')
    broken.push(`pollution probe: user_group keys ${Object.keys(body.user_group).join()}`);
  if (JSON.stringify(body.user_group.properties) !== '{"plain":1}')
    broken.push(`pollution probe: properties ${JSON.stringify(body.user_group.properties)}`);
  for (const marker of POLLUTION_MARKERS) if (res.text.includes(marker)) broken.push(`pollution probe: the answer mentions "${marker}"`);
  return broken;
}

/**
 * The failed-auth throttle refuses failures, never a valid key: after a run full of bad keys,
 * this address is pushed over the limit for certain (bad keys until one is answered 429, at most
 * `limit + 1`), and a request with a valid key from it must still answer 200.
 */
export async function validKeyServedViolations(baseUrl: string, apiKey: string, limit = 100): Promise<string[]> {
  const badKey = { authorization: `Token ${apiKeyFormat.generate()}` };
  let throttled = false;
  for (let i = 0; i <= limit && !throttled; i++)
    throttled = (await rawRequest(baseUrl, { method: 'GET', path: '/api/user', headers: badKey })).status === 429;
  if (!throttled) return [`failed-auth throttle: ${limit + 1} bad keys in a row were never answered 429`];
  const res = await rawRequest(baseUrl, { method: 'GET', path: '/api/user_groups', headers: { authorization: `Token ${apiKey}` } });
  return res.status === 200
    ? []
    : [`failed-auth throttle: a valid key from a throttled address answered ${res.status} ${res.text.slice(0, 200)}`];
}

// ---------------------------------------------------------------------------
// The snapshot of groups fuzz traffic must not change.

export interface SnapshotKeys {
  /** A Testing key used for nothing but the snapshot. */
  testing: string;
  /** A Customer key used for nothing but the snapshot (the fuzz traffic has its own Customer keys). */
  customer: string;
}

export interface SnapshotEntry {
  key: string;
  environment: 'Testing' | 'Customer';
  userGroupId: string;
  /** The get-or-create answer's body, byte for byte. */
  text: string;
  /** The GET /api/user_groups/{id} answer's body (mapping and updated_at included), byte for byte. */
  itemText: string;
  token: string;
}

export interface Snapshot {
  entries: SnapshotEntry[];
  /**
   * Tokens of the Testing groups. The fuzz traffic may be handed these to try
   * rotating them with its Customer keys, which must fail (404) and leave them
   * unchanged: a check of environment isolation.
   */
  testingTokens: string[];
}

/**
 * Creates ~5 groups with dedicated keys and records their answers to get-or-create and to GET /api/user_groups/{id}.
 *
 * Why these ids and environments: the fuzz traffic uses its own Customer keys,
 * and a Customer key may legitimately update or rotate any Customer group whose
 * id (or token) it sends. So
 * - the Testing groups are out of the fuzz traffic's reach by environment,
 *   even `snap-1` and `snap-2`, ids the generators do send (in Customer), which
 *   makes them a check of environment isolation;
 * - the Customer groups have a random 16-hex suffix the generators never
 *   produce, and their tokens are never handed to the generators, so nothing
 *   legitimate can change (update, rotate, delete) them: they check that no
 *   request corrupts a group it does not name.
 */
export async function takeSnapshot(baseUrl: string, keys: SnapshotKeys): Promise<Snapshot> {
  const suffix = () => randomBytes(8).toString('hex');
  const plan: { key: string; environment: 'Testing' | 'Customer'; body: Record<string, unknown> }[] = [
    {
      key: keys.testing,
      environment: 'Testing',
      body: { user_group_id: 'snap-1', name: 'Snapshot one', mapping: { '40': '213' }, properties: { region: 'eu' } },
    },
    {
      key: keys.testing,
      environment: 'Testing',
      body: { user_group_id: 'snap-2', name: 'Snapshot 😀 \u202e two', properties: { nested: { a: [1, 'x', null] } } },
    },
    { key: keys.testing, environment: 'Testing', body: { user_group_id: `snapshot-${suffix()}`, name: 'Snapshot three' } },
    {
      key: keys.customer,
      environment: 'Customer',
      body: { user_group_id: `snapshot-${suffix()}`, name: 'Snapshot four', mapping: { '1': 2 }, properties: { n: 1 } },
    },
    {
      key: keys.customer,
      environment: 'Customer',
      body: { user_group_id: `snapshot-${suffix()}`, name: 'Snapshot five', properties: { s: 'é\u0000' } },
    },
  ];
  const entries: SnapshotEntry[] = [];
  for (const { key, environment, body } of plan) {
    const created = await getGroup(baseUrl, key, body);
    if (created.status !== 200)
      throw new Error(`snapshot: creating ${String(body.user_group_id)} answered ${created.status} ${created.text}`);
    const userGroupId = String(body.user_group_id);
    const again = await getGroup(baseUrl, key, { user_group_id: userGroupId });
    if (again.status !== 200) throw new Error(`snapshot: reading ${userGroupId} answered ${again.status} ${again.text}`);
    const item = await readItem(baseUrl, key, userGroupId);
    if (item.status !== 200) throw new Error(`snapshot: GET /api/user_groups/${userGroupId} answered ${item.status} ${item.text}`);
    entries.push({
      key,
      environment,
      userGroupId,
      text: again.text,
      itemText: item.text,
      token: (again.json as { user_group: { token: string } }).user_group.token,
    });
  }
  return { entries, testingTokens: entries.filter((e) => e.environment === 'Testing').map((e) => e.token) };
}

/** How the snapshot groups differ from when they were taken; empty when identical. */
export async function snapshotViolations(baseUrl: string, snapshot: Snapshot): Promise<string[]> {
  const broken: string[] = [];
  for (const entry of snapshot.entries) {
    const now = await getGroup(baseUrl, entry.key, { user_group_id: entry.userGroupId });
    if (now.text !== entry.text) {
      broken.push(
        `snapshot group ${entry.environment}/${entry.userGroupId} changed: was ${entry.text.slice(0, 300)}, now ${now.status} ${now.text.slice(0, 300)}`,
      );
    }
    const item = await readItem(baseUrl, entry.key, entry.userGroupId);
    if (item.text !== entry.itemText) {
      broken.push(
        `snapshot group ${entry.environment}/${entry.userGroupId} reads differently: was ${entry.itemText.slice(0, 300)}, now ${item.status} ${item.text.slice(0, 300)}`,
      );
    }
  }
  return broken;
}

function readItem(baseUrl: string, key: string, userGroupId: string): Promise<RawResponse> {
  return rawRequest(baseUrl, {
    method: 'GET',
    path: `/api/user_groups/${encodeURIComponent(userGroupId)}`,
    headers: { authorization: `Token ${key}` },
  });
}

function getGroup(baseUrl: string, key: string, body: Record<string, unknown>): Promise<RawResponse> {
  return rawRequest(baseUrl, {
    method: 'GET',
    path: '/api/user',
    headers: { authorization: `Token ${key}`, 'content-type': 'application/json' },
    body,
  });
}

/** Error lines (pino level 50 and up) among a server's JSON log lines. */
export function errorLogLines(logText: string): string[] {
  return logText.split('\n').filter((line) => {
    const match = /"level":(\d+)/.exec(line);
    return match !== null && Number(match[1]) >= 50;
  });
}
