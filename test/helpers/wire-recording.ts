import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/platform/package-root.js';
import { rawRequest, type RawRequest, type RawResponse } from './http-client.js';

/**
 * A recorded answer with everything random or time-based replaced by a stable
 * placeholder, its shape kept: status, headers, body with its keys in order.
 * Random values are numbered in order of first appearance (`<event_id#3>`), so
 * the recording still says which answer repeats which value.
 */
export interface WireEntry {
  request: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Values that are random per run, recognised anywhere in a string (a Location header, an error message). */
const RANDOM_VALUES: [kind: string, pattern: RegExp][] = [
  ['api_key', /ugsk_[0-9A-Za-z]{49}/g],
  ['group_token', /ugt_[0-9A-Za-z]{49}/g],
  ['console_session', /ugsc_[0-9A-Za-z]{49}/g],
  ['key_id', /key_[0-9a-f]{16}/g],
  ['webhook_secret', /whsec_[A-Za-z0-9+/]{32}/g],
  ['webhook_id', /wh_[0-9a-f]{24}/g],
  ['session_id', /es_[A-Za-z0-9_-]{48}/g],
  // Time-ordered on SQLite, random on PostgreSQL (issue 27, item 1): the same shape, so one placeholder.
  ['event_id', /evt_[0-9a-f]{32}/g],
  ['delivery_id', /whd_[A-Za-z0-9_-]{22}/g],
  ['jwt', /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g],
];

/** Values not numbered: per answer (request ids), or time-based, so that two of them may or may not be equal from one run to the next. */
const UNNUMBERED_VALUES: [placeholder: string, pattern: RegExp][] = [
  ['<request_id>', /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g],
  ['<timestamp>', /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g],
  ['<http_date>', /(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT/g],
  ['retry in <duration>.', /retry in [^.]+\./g],
  ["'nonce-<nonce>'", /'nonce-[A-Za-z0-9+/=_-]+'/g],
];

/** Body fields whose whole value is random (sealed cursors, key material) or a time in seconds. */
const RANDOM_FIELDS: Record<string, string> = { next_cursor: 'cursor', kid: 'kid', tv: 'token_version', token_version: 'token_version' };
const OPAQUE_FIELDS = new Set(['x', 'y', 'n', 'e']);
const EPOCH_FIELDS = new Set(['iat', 'exp', 'nbf']);
/** How long something took here: the same answer may take 0 or 3 ms. */
const DURATION_FIELDS = new Set(['duration_ms']);

/** Headers whose value is per answer or per moment; their presence is kept. */
const VOLATILE_HEADERS: Record<string, string> = {
  date: '<http_date>',
  'retry-after': '<seconds>',
  'x-ratelimit-reset': '<seconds>',
  'ratelimit-reset': '<seconds>',
  etag: '<etag>',
  'last-modified': '<http_date>',
};

/**
 * How a body is recorded: as JSON; a JSON Web Key Set with each key's members
 * sorted (PostgreSQL keeps the public keys as jsonb, which reorders them; the
 * order means nothing to a verifier); the OpenAPI document as digests; the
 * names of /metrics' own metrics; not at all (HTML, Swagger UI).
 */
type BodyMode = 'json' | 'jwks' | 'digest' | 'metric-names' | 'omitted';

export class WireRecorder {
  readonly entries: WireEntry[] = [];
  private readonly seen = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  constructor(private readonly baseUrl: string) {}

  /** Sends one request over a real socket, records its normalized answer and returns the raw one for the script to use. */
  async send(req: RawRequest, describe: { body?: BodyMode; label?: string } = {}): Promise<RawResponse> {
    const res = await rawRequest(this.baseUrl, req);
    const mode = describe.body ?? (res.text === '' ? 'omitted' : 'json');
    const headers = this.headers(res.headers);
    // Its counters change with every request, and so its length (HEAD's too); a duration's digits (9 or 10 ms) change a body's.
    if (mode === 'metric-names' || (mode === 'json' && /"duration_ms":/.test(res.text))) headers['content-length'] = '<length>';
    this.entries.push({
      request: this.text(`${req.method} ${req.path}${describe.label ? ` (${describe.label})` : ''}`),
      status: res.status,
      headers,
      body: res.text === '' ? null : this.body(mode, res),
    });
    return res;
  }

  private body(mode: BodyMode, res: RawResponse): unknown {
    if (mode === 'json') return this.value(res.json);
    if (mode === 'jwks')
      return this.value({
        ...res.json,
        keys: (res.json.keys as object[]).map((k) => Object.fromEntries(Object.entries(k).sort(([a], [b]) => a.localeCompare(b)))),
      });
    if (mode === 'digest') return digestOfOpenApi(res.json);
    // Counters and histograms change with every request; which metrics there are does not.
    if (mode === 'metric-names') return res.text.match(/^# TYPE ugs_\S+ \S+$/gm) ?? [];
    return `<${res.text.length > 0 ? 'not recorded' : 'empty'}>`;
  }

  private headers(headers: IncomingHttpHeaders): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of Object.keys(headers).sort()) {
      const value = headers[name];
      const text = Array.isArray(value) ? value.join('\n') : String(value);
      out[name] = VOLATILE_HEADERS[name] ?? this.text(name === 'set-cookie' ? text.replace(/=[^;]*/, '=<cookie>') : text);
    }
    return out;
  }

  private value(value: unknown, key?: string): unknown {
    if (typeof value === 'string') {
      if (key !== undefined && RANDOM_FIELDS[key]) return this.placeholder(RANDOM_FIELDS[key], value);
      if (key !== undefined && OPAQUE_FIELDS.has(key)) return `<${key}>`;
      return this.text(value);
    }
    if (typeof value === 'number' && key !== undefined && EPOCH_FIELDS.has(key)) return '<epoch_seconds>';
    if (typeof value === 'number' && key !== undefined && DURATION_FIELDS.has(key)) return '<milliseconds>';
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.value(v, k)]));
    }
    return value;
  }

  /** Replaces, in any text, the values seen before (a cursor passed back in a URL) and the random and time-based ones. */
  text(value: string): string {
    let out = value;
    for (const [seen, placeholder] of this.seen) out = out.split(seen).join(placeholder);
    for (const [kind, pattern] of RANDOM_VALUES) out = out.replace(pattern, (match) => this.placeholder(kind, match));
    for (const [placeholder, pattern] of UNNUMBERED_VALUES) out = out.replace(pattern, placeholder);
    return out;
  }

  private placeholder(kind: string, value: string): string {
    const known = this.seen.get(value);
    if (known !== undefined) return known;
    const n = (this.counts.get(kind) ?? 0) + 1;
    this.counts.set(kind, n);
    const placeholder = `<${kind}#${n}>`;
    this.seen.set(value, placeholder);
    return placeholder;
  }
}

/**
 * The OpenAPI document is 240 kB: recorded as a digest per operation and per
 * shared schema, so a change names the operation it touches.
 */
function digestOfOpenApi(document: {
  info: unknown;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
}): unknown {
  const digest = (value: unknown) => `sha256:${createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16)}`;
  const { paths, components, ...rest } = document;
  return {
    ...Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, digest(value)])),
    paths: Object.fromEntries(
      Object.entries(paths).map(([path, item]) => [
        path,
        Object.fromEntries(Object.entries(item).map(([method, op]) => [method, digest(op)])),
      ]),
    ),
    components: Object.fromEntries(
      Object.entries(components).map(([section, entries]) => [
        section,
        Object.fromEntries(Object.entries(entries).map(([name, value]) => [name, digest(value)])),
      ]),
    ),
  };
}

/** The committed recording; `UGS_RECORD_WIRE=1` rewrites it from this run instead of comparing. */
export function compareWithGolden(entries: WireEntry[], file: string): void {
  const path = join(packageRoot(), file);
  if (process.env.UGS_RECORD_WIRE === '1') {
    writeFileSync(path, `${JSON.stringify(entries, null, 2)}\n`);
    return;
  }
  const golden = JSON.parse(readFileSync(path, 'utf8')) as WireEntry[];
  const rerecord = `If the wire changed on purpose, re-record with UGS_RECORD_WIRE=1 and review the diff of ${file}.`;
  assert.deepEqual(
    entries.map((e) => e.request),
    golden.map((e) => e.request),
    `The script's requests differ from ${file}. ${rerecord}`,
  );
  const differing = entries.flatMap((entry, i) => (JSON.stringify(entry) === JSON.stringify(golden[i]) ? [] : [i]));
  if (differing.length === 0) return;
  const first = differing[0]!;
  const summary = `${differing.length} answer(s) differ from ${file}: ${differing.map((i) => entries[i]!.request).join('; ')}. ${rerecord} The first one, as answered now (+) and as recorded (-):`;
  try {
    // As text, so a change of key order shows too (deepEqual ignores it); without a message of its own, assert prints the line diff.
    assert.equal(JSON.stringify(entries[first], null, 2), JSON.stringify(golden[first], null, 2));
  } catch (error) {
    (error as Error).message = `${summary}\n${(error as Error).message}`;
    throw error;
  }
}
