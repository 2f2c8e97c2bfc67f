import { may, readRefusal, type Principal } from '../kernel/principal.js';
import type { ChangeOrigin } from '../audit/audit.js';
import { forbidden, invalidRequest, notFound } from '../kernel/errors.js';
import { REVOCATION_WRITE_MARGIN_MS, type StoreClock } from '../kernel/store-clock.js';
import type { UserGroupStore } from '../user-groups/user-group-store.js';
import { viewerSessionsRevoked } from './viewer-consequences.js';
import { checkViewerId, VIEWER_LIMITS, type ViewerActivity, type ViewerPosition } from './viewer.js';
import type { ViewerStore } from './viewer-store.js';

export interface ViewerServiceDeps {
  store: ViewerStore;
  groups: Pick<UserGroupStore, 'findUserGroup'>;
  /** How far past this process's clock a revocation's cut-off reaches (see StoreClock); the write margin alone without one. */
  clock?: Pick<StoreClock, 'cutOffAllowanceMs'>;
  now?: () => Date;
}

/**
 * Viewers: the people inside a group, known from the sessions that name them
 * (no registry to keep in sync). Ending a viewer's sessions ends them in every
 * group of the environment; listing a group's viewers reads the counted
 * activity, which lags the mints by at most one flush interval.
 */
export class ViewerService {
  private readonly now: () => Date;

  constructor(private readonly deps: ViewerServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * Ends every session of the viewer minted so far, in every group of the key's environment: audited, an
   * event, a feed entry. The entry ends the sessions whose `iat` is up to the second of its cut-off, which is
   * this process's clock plus what any replica's clock may be ahead of it (StoreClock.cutOffAllowanceMs), so a
   * session another replica minted before this answer is covered whatever its clock said. A mint for the
   * viewer after the answer reads the entry and stamps its session past the cut-off (EmbedSessionService).
   * A write slower than its margin is written again with a new cut-off: a session minted during it could
   * otherwise be stamped past the first one.
   */
  async revokeSessions(principal: Principal, viewerId: string, origin?: ChangeOrigin): Promise<{ viewerId: string; revokedAt: string }> {
    if (!may(principal, 'mint'))
      throw forbidden(`This API key is ${principal.access}; a viewer's sessions are ended with a read-write or embed key.`);
    // The id sessions are minted with is NFC (checkViewer): another form of it would end nothing, and say 200.
    checkViewerId(viewerId, 'viewer_id');
    const audit = { keyId: principal.keyId, fields: [], clientAddress: origin?.ip ?? null };
    for (let attempt = 1; ; attempt++) {
      const allowance = (await this.deps.clock?.cutOffAllowanceMs()) ?? REVOCATION_WRITE_MARGIN_MS;
      const started = this.now().getTime();
      const cutOff = new Date(started + allowance).toISOString();
      await this.deps.store.revokeViewerSessions(cutOff, viewerSessionsRevoked(principal.environment, viewerId, cutOff, audit));
      if (this.now().getTime() - started <= REVOCATION_WRITE_MARGIN_MS || attempt === REVOCATION_WRITE_ATTEMPTS)
        return { viewerId, revokedAt: cutOff };
    }
  }

  /** The viewers seen in a group's sessions, most recently seen first. */
  async list(
    principal: Principal,
    providedId: string,
    page: { after?: string; limit?: number },
  ): Promise<{ viewers: ViewerActivity[]; nextCursor: string | null }> {
    if (!may(principal, 'read')) throw forbidden(readRefusal(principal, 'viewers'));
    const group = await this.deps.groups.findUserGroup(principal.environment, providedId);
    if (!group)
      throw notFound(
        `No user group with "user_group_id" ${JSON.stringify(providedId)} exists in the ${principal.environment} environment.`,
      );
    const limit = page.limit ?? VIEWER_LIMITS.pageDefault;
    const after = page.after === undefined ? null : openCursor(page.after);
    const rows = await this.deps.store.listViewers(principal.environment, group.teamId, after, limit + 1);
    const shown = rows.slice(0, limit);
    const last = shown.at(-1);
    return { viewers: shown, nextCursor: rows.length > limit && last ? cursorOf(last) : null };
  }
}

/** Writes of one revocation at most: a store slower than the margin three times over is not made faster by a fourth. */
const REVOCATION_WRITE_ATTEMPTS = 3;

/** A cursor names the last viewer shown (its last-seen time and id): nothing the caller was not shown already. */
function cursorOf(viewer: ViewerPosition): string {
  return Buffer.from(JSON.stringify([viewer.lastSeenAt, viewer.viewerId])).toString('base64url');
}

function openCursor(cursor: string): ViewerPosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      !Number.isNaN(Date.parse(value[0])) &&
      typeof value[1] === 'string'
    )
      return { lastSeenAt: new Date(value[0]).toISOString(), viewerId: value[1] };
  } catch {
    // Garbage: the same answer as a well-formed value that is not a cursor.
  }
  throw invalidRequest('"after" is not a cursor this list handed out: pass the "next_cursor" of the previous page, or leave it out.');
}
