import { SECRET_PREFIXES } from './secret-format.js';

/** The webhook signing secrets' prefix (Standard Webhooks): base64 follows, so `+`, `/`, `=` and their %-escapes too. */
const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Every JWS compact token starts so: base64url of `{"`, the start of its JSON header. Embed tokens are JWTs. */
const JWT_PREFIX = 'eyJ';
/** API keys, user group tokens, console session ids (secret-format.ts). */
const SHAPED = [SECRET_PREFIXES.apiKey, SECRET_PREFIXES.userGroupToken, SECRET_PREFIXES.consoleSessionId];
const PREFIXES = [...SHAPED, WEBHOOK_SECRET_PREFIX, JWT_PREFIX];
/**
 * A prefix and the run after it, whatever its length: malformed and truncated secrets are still secrets. A JWT's
 * run takes its dots (header, payload, signature); a webhook secret's, base64 and %-escapes.
 */
const SECRET = new RegExp(
  [
    `(${SHAPED.join('|')})[0-9A-Za-z]+`,
    `(${WEBHOOK_SECRET_PREFIX})[0-9A-Za-z+/=%]+`,
    `(${JWT_PREFIX})[0-9A-Za-z_\\-]*(?:\\.[0-9A-Za-z_\\-]*){0,2}`,
  ].join('|'),
  'g',
);

/**
 * `text` with every credential the service issues replaced by its prefix and `[redacted]` (`ugt_[redacted]`,
 * `eyJ[redacted]`): API keys, user group tokens, console session ids, webhook signing secrets and embed tokens
 * (any JWT). For text that may echo what a client sent: log lines, error messages. One substring check per
 * prefix when there is nothing to redact, so it can run on every log line.
 */
export function redactSecrets(text: string): string {
  for (const prefix of PREFIXES)
    if (text.includes(prefix)) return text.replace(SECRET, (_match, a?: string, b?: string, c?: string) => `${a ?? b ?? c}[redacted]`);
  return text;
}

/** The URL with its password (in the authority or the query string) replaced by '****'. */
export function maskDatabaseUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password) url.password = '****';
    for (const param of ['password', 'sslpassword']) if (url.searchParams.has(param)) url.searchParams.set(param, '****');
    return url.toString();
  } catch {
    return '****';
  }
}
