import { apiKeyFormat } from '../api-keys/api-key.js';
import { userGroupTokenFormat } from '../user-groups/user-group-token.js';
import { consoleSessionIdFormat } from '../console/console-session.js';

const PREFIXES = [apiKeyFormat.prefix, userGroupTokenFormat.prefix, consoleSessionIdFormat.prefix];
/** A prefix and the base62 run after it, whatever its length: malformed and truncated secrets are still secrets. */
const SECRET = new RegExp(`(${PREFIXES.join('|')})[0-9A-Za-z]+`, 'g');

/**
 * `text` with every API key, user group token and console session id in it replaced by its prefix
 * and `[redacted]` (`ugt_[redacted]`). For text that may echo what a client
 * sent: log lines, error messages. One substring check per prefix when there is nothing
 * to redact, so it can run on every log line.
 */
export function redactSecrets(text: string): string {
  for (const prefix of PREFIXES) if (text.includes(prefix)) return text.replace(SECRET, '$1[redacted]');
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
