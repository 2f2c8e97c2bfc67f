import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { DataSourceSsl } from '../data-source.js';

/**
 * The `ssl` option of a pg client for a TLS mode, as libpq reads the mode. The client connects to a checked address,
 * not to the name, so the name is handed to TLS here: as SNI (proxies route by it; an address is never sent there,
 * RFC 6066) and, for verify-full, as the name the certificate must carry.
 */
export function postgresSslOptions(ssl: DataSourceSsl, servername: string): false | ConnectionOptions {
  const sni = isIP(servername) === 0 ? { servername } : {};
  const ca = ssl.ca === undefined ? {} : { ca: ssl.ca };
  switch (ssl.mode) {
    case 'disable':
      return false;
    case 'require':
      return { ...sni, rejectUnauthorized: false };
    case 'verify-ca':
      // The chain is verified; the name is not (libpq's verify-ca).
      return { ...sni, ...ca, rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case 'verify-full':
      // An address given as the host is the one connected to, which TLS then checks the certificate against.
      return { ...sni, ...ca, rejectUnauthorized: true };
  }
}
