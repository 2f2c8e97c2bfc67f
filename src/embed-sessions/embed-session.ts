import type { Environment } from '../kernel/environment.js';
import { invalidRequest } from '../kernel/errors.js';
import { MAX_SESSION_LIFETIME_SECONDS, MAX_SESSION_SECONDS } from '../kernel/embed-tokens.js';
import type { Mapping, Properties } from '../user-groups/user-group.js';
import type { Viewer } from '../viewers/viewer.js';

export const EMBED_LIMITS = {
  expiresInMin: 60,
  expiresInMax: MAX_SESSION_SECONDS,
  expiresInDefault: 600,
  /** max_lifetime: from expires_in to 7 days; 12 hours unless given. */
  maxLifetimeMax: MAX_SESSION_LIFETIME_SECONDS,
  maxLifetimeDefault: 12 * 3600,
  /** A token that expired longer ago than this cannot be renewed: its viewer was idle for a whole lifetime. */
  renewGraceSeconds: 60,
  dashboardMaxLength: 255,
  originsMax: 10,
  /** include_descendants lists at most this many ids (claim desc); a larger subtree answers 409. */
  descendantsMax: 100,
  /** Revocation feed page size. */
  revocationsPageMax: 1000,
  revocationsPageDefault: 100,
} as const;

export const EMBED_TOKEN_TYPE = 'embed+jwt';

/** What a backend asks for when it mints a session (one of userGroupId or userGroupToken). */
export interface EmbedSessionRequest {
  userGroupId?: string;
  userGroupToken?: string;
  expiresIn?: number;
  dashboard?: string;
  origins?: string[];
  /** Adds the group's descendants' ids (claim desc). */
  includeDescendants?: boolean;
  /** Who views (claim vid); their attributes overlay the group's properties. */
  viewer?: Viewer;
  /** Seconds the session may live through its renewals (from expires_in to 7 days). */
  maxLifetime?: number;
  /** What the Customer API's generate_jwt names and this service has no use for, carried to the dashboard layer as claims. */
  dashboardOptions?: DashboardOptions;
}

/**
 * The Customer API's Generate JWT fields that name features of the dashboard layer (a single chart, report-builder
 * features, the editable section): carried as the claims Explo's own tokens use (cht, rbc, des) through every
 * renewal, for that layer to honour; this service enforces none of them.
 */
export interface DashboardOptions {
  chartId?: string;
  reportBuilderFeatures?: string[];
  disableEditableSectionEditing?: boolean;
}

/**
 * A session as the store keeps it once ended early (and, before session ids
 * checked themselves, every minted one): never the token itself, only what
 * revocation and introspection need.
 */
export interface EmbedSessionRecord {
  sessionId: string;
  environment: Environment;
  teamId: number;
  providedId: string;
  tokenVersion: string;
  /** When the row was stored: at the mint for the earlier ids, at the revocation since. */
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

/** The claims of an embed token (see docs/embedding.md). */
export interface EmbedClaims {
  iss: string;
  aud: string;
  sub: string;
  env: Environment;
  tid: number;
  name: string;
  map: Mapping;
  /** The group's effective properties, the viewer's attributes over them. */
  props: Properties;
  /** The group's own effective properties, when the viewer has attributes: what row-level policies bind to (ugs.prop). */
  gprops?: Properties;
  tv: string;
  jti: string;
  iat: number;
  exp: number;
  dsh?: string;
  org?: string[];
  /** The ancestors' ids, root first; [] for a group without a parent. */
  anc: string[];
  /** The descendants' ids, when the session was minted with include_descendants. */
  desc?: string[];
  /** The viewer's id, when the session was minted for one. */
  vid?: string;
  /** The viewer's attributes as given at the mint, carried to every renewal (props holds them overlaid). */
  vat?: Properties;
  /** DashboardOptions, when the session was minted with them (the Customer API's generate_jwt). */
  cht?: string;
  rbc?: string[];
  des?: boolean;
}

/** The claims DashboardOptions become. */
export function dashboardOptionClaims(options: DashboardOptions | undefined): Pick<EmbedClaims, 'cht' | 'rbc' | 'des'> {
  if (options === undefined) return {};
  return {
    ...(options.chartId === undefined ? {} : { cht: options.chartId }),
    ...(options.reportBuilderFeatures === undefined ? {} : { rbc: [...options.reportBuilderFeatures] }),
    ...(options.disableEditableSectionEditing === undefined ? {} : { des: options.disableEditableSectionEditing }),
  };
}

/** Hosts whose http origins are accepted: the page is then on the viewer's own machine (development). */
const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;
/** A DNS name as a CSP source expression can name it: labels of letters, digits and inner hyphens, 1 to 63 characters each. */
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** Whether a parsed URL's host is a DNS name or an IP literal (what the URL parser keeps beside them, `*`, `;`, quotes, is neither). */
function isNameOrAddress(hostname: string): boolean {
  if (hostname.startsWith('[') || IPV4.test(hostname)) return true; // the URL parser has checked and normalized IP literals
  return hostname.length <= 253 && hostname.split('.').every((label) => DNS_LABEL.test(label));
}

/**
 * Origins a dashboard may be framed by (`org`, which a dashboard puts into
 * CSP frame-ancestors): `scheme://host[:port]`, written exactly as a browser
 * sends it (no path, no trailing slash, lower case, no default port); https,
 * or http for a loopback host in development; the host a DNS name or an IP
 * literal, so that no entry reads as a wildcard (`https://*`), a keyword or a
 * second directive (`;sandbox`) in a CSP source list; the port 1 to 65535.
 */
export function checkOrigins(origins: readonly string[]): string[] {
  if (origins.length > EMBED_LIMITS.originsMax)
    throw invalidRequest(`"origins" has ${origins.length} entries; at most ${EMBED_LIMITS.originsMax} are allowed.`);
  return origins.map((origin) => {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw invalidRequest(`"origins" entry ${JSON.stringify(origin)} is not an origin such as "https://app.example.com".`);
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname))) {
      throw invalidRequest(
        `"origins" entry ${JSON.stringify(origin)} must use https (http is allowed for a loopback host only: localhost, 127.0.0.0/8 or [::1]).`,
      );
    }
    if (!isNameOrAddress(url.hostname)) {
      throw invalidRequest(
        `"origins" entry ${JSON.stringify(origin)} has the host ${JSON.stringify(url.hostname)}, which is neither a DNS name (labels of letters, digits and inner hyphens, 1 to 63 characters each, 253 in all, no final dot) nor an IP literal: in Content-Security-Policy frame-ancestors it could read as a wildcard, a keyword or another directive.`,
      );
    }
    if (url.port === '0') throw invalidRequest(`"origins" entry ${JSON.stringify(origin)} has port 0; a port is 1 to 65535.`);
    if (url.origin !== origin) {
      throw invalidRequest(
        `"origins" entry ${JSON.stringify(origin)} must be written as an origin, ${JSON.stringify(url.origin)}: scheme, lower-case host and port only.`,
      );
    }
    return origin;
  });
}
