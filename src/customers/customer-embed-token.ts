import { parse as parseDuration, toSeconds } from 'iso8601-duration';
import type { EmbedSessionService, MintedSession } from '../embed-sessions/embed-session-service.js';
import { EMBED_LIMITS } from '../embed-sessions/embed-session.js';
import { invalidRequest } from '../kernel/errors.js';
import type { Principal } from '../kernel/principal.js';

/** The Customer API's Generate JWT request, as this service reads it. */
export interface CustomerJwtRequest {
  providedId: string;
  embedId?: string;
  expiration?: string;
  keyId?: string;
  chartId?: string;
  rbAllowedFeatures?: string[];
  disableEditableSectionEditing?: boolean;
  embedOrigin?: string;
}

/** The reference's default lifetime: 24 hours, also the longest an embed session's token lives here. */
const DEFAULT_SECONDS = EMBED_LIMITS.expiresInMax;

/**
 * The Customer API's Generate JWT, as an embed session of this service: the same signed token POST
 * /api/embed_sessions mints (verified with the environment's JWKS, ended by a rotation or a deletion), for the
 * customer provided_id names. embed_id is its dashboard (dsh), embed_origin its one origin (org), expiration its
 * lifetime; chart_id, rb_allowed_features and disable_editable_section_editing, which name features of the
 * dashboard layer, are carried as the claims Explo's own tokens use (cht, rbc, des). key_id names one of Explo's
 * embed secrets, which this service has not: it is accepted only when it is the environment's active signing key.
 */
export class CustomerEmbedTokens {
  constructor(private readonly sessions: EmbedSessionService) {}

  generate(principal: Principal, request: CustomerJwtRequest): Promise<MintedSession> {
    const expiresIn = request.expiration === undefined ? DEFAULT_SECONDS : durationSeconds(request.expiration);
    if (request.keyId !== undefined) {
      const active = this.sessions.activeKeyId(principal.environment);
      if (request.keyId !== active) {
        throw invalidRequest(
          `"key_id" ${JSON.stringify(request.keyId)} is not the ${principal.environment} environment's signing key: this service signs every session with its environment's active key (kid ${JSON.stringify(active)}, published in its JWKS) and has no per-key embed secrets. Leave key_id out.`,
        );
      }
    }
    return this.sessions.mint(principal, {
      userGroupId: request.providedId,
      expiresIn,
      ...(request.embedId === undefined ? {} : { dashboard: request.embedId }),
      ...(request.embedOrigin === undefined ? {} : { origins: [originOf(request.embedOrigin)] }),
      dashboardOptions: {
        ...(request.chartId === undefined ? {} : { chartId: request.chartId }),
        ...(request.rbAllowedFeatures === undefined ? {} : { reportBuilderFeatures: request.rbAllowedFeatures }),
        ...(request.disableEditableSectionEditing === undefined
          ? {}
          : { disableEditableSectionEditing: request.disableEditableSectionEditing }),
      },
    });
  }
}

/**
 * An ISO 8601 duration in whole seconds, from 1 minute to 24 hours. Years and months are refused: their length
 * depends on the calendar date they start from, and none of them fits in 24 hours anyway.
 */
function durationSeconds(expiration: string): number {
  let duration;
  try {
    duration = parseDuration(expiration);
  } catch {
    throw invalidRequest(`"expiration" ${JSON.stringify(expiration)} is not an ISO 8601 duration such as "PT1H" (one hour) or "PT30M".`);
  }
  if (duration.years || duration.months) {
    throw invalidRequest(
      `"expiration" ${JSON.stringify(expiration)} counts years or months; give it in days, hours, minutes or seconds (at most PT24H).`,
    );
  }
  const seconds = toSeconds(duration);
  if (!Number.isInteger(seconds) || seconds < EMBED_LIMITS.expiresInMin || seconds > EMBED_LIMITS.expiresInMax) {
    throw invalidRequest(
      `"expiration" ${JSON.stringify(expiration)} is ${seconds} seconds; it must be whole seconds from ${EMBED_LIMITS.expiresInMin} (PT1M) to ${EMBED_LIMITS.expiresInMax} (PT24H).`,
    );
  }
  return seconds;
}

/** The origin an embed_origin names: the reference's examples end it with "/", which an origin has not. */
function originOf(embedOrigin: string): string {
  let url: URL;
  try {
    url = new URL(embedOrigin);
  } catch {
    throw invalidRequest(`"embed_origin" ${JSON.stringify(embedOrigin)} is not an origin such as "https://your-domain.com/".`);
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw invalidRequest(
      `"embed_origin" ${JSON.stringify(embedOrigin)} has more than an origin (a path, query or credentials): send "${url.origin}/".`,
    );
  }
  // Left for the mint to check as every origin is (https, or http on a loopback host).
  return embedOrigin.endsWith('/') ? embedOrigin.slice(0, -1) : embedOrigin;
}
