/** An entry's expires_at (ms), and the feed's reason for it (token_rotated, user_group_deleted, ...), to say why a session ended. */
interface Entry {
  expiresAtMs: number;
  reason: string;
}

/**
 * What the revocation feed said, kept until each entry's expires_at (after
 * which no token it covers can still be live). A lookup is two Map reads.
 */
export class RevocationList {
  /** jti -> its entry. */
  private readonly sessions = new Map<string, Entry>();
  /** versionKey(sub, tv) -> its entry. */
  private readonly versions = new Map<string, Entry>();
  /** vid -> the latest revocation's second (tokens with an iat up to it are revoked), when the entry expires (ms) and why. */
  private readonly viewers = new Map<string, { upToIat: number; expiresAtMs: number; reason: string }>();

  get revokedSessions(): number {
    return this.sessions.size;
  }

  get revokedTokenVersions(): number {
    return this.versions.size;
  }

  get revokedViewers(): number {
    return this.viewers.size;
  }

  revokeSession(jti: string, expiresAtMs: number, reason = 'session_revoked'): void {
    keepLatest(this.sessions, jti, expiresAtMs, reason);
  }

  /** Every session of the group minted under token version `tv`: its token rotated, the group deleted or renamed (`reason`). */
  revokeTokenVersion(sub: string, tv: string, expiresAtMs: number, reason = 'token_rotated'): void {
    keepLatest(this.versions, versionKey(sub, tv), expiresAtMs, reason);
  }

  /** Every session of the viewer with an iat up to `upToIat` (the revocation's second), in every group. */
  revokeViewer(vid: string, upToIat: number, expiresAtMs: number, reason = 'viewer_revoked'): void {
    const known = this.viewers.get(vid);
    this.viewers.set(vid, {
      upToIat: Math.max(upToIat, known?.upToIat ?? -Infinity),
      expiresAtMs: Math.max(expiresAtMs, known?.expiresAtMs ?? 0),
      reason,
    });
  }

  isRevoked(jti: string, key: string, vid?: string, iat?: number): boolean {
    return this.revocationReason(jti, key, vid, iat) !== undefined;
  }

  /** The feed's reason the session was revoked (token_rotated, user_group_deleted, ...), or undefined when it was not. */
  revocationReason(jti: string, key: string, vid?: string, iat?: number): string | undefined {
    const entry = this.sessions.get(jti) ?? this.versions.get(key);
    if (entry !== undefined) return entry.reason;
    if (vid === undefined || iat === undefined) return undefined;
    const viewer = this.viewers.get(vid);
    return viewer !== undefined && iat <= viewer.upToIat ? viewer.reason : undefined;
  }

  /** Forgets the entries whose tokens have all expired. */
  prune(nowMs: number): void {
    for (const map of [this.sessions, this.versions]) {
      for (const [key, { expiresAtMs }] of map) if (expiresAtMs <= nowMs) map.delete(key);
    }
    for (const [vid, { expiresAtMs }] of this.viewers) if (expiresAtMs <= nowMs) this.viewers.delete(vid);
  }
}

/** The (sub, tv) pair as one Map key, computed once per verified token; length-prefixed, so no two pairs share a key. */
export function versionKey(sub: string, tv: string): string {
  return `${tv.length}:${tv}${sub}`;
}

/** Keeps the later expiry of two entries for one key, and the newer entry's reason. */
function keepLatest(map: Map<string, Entry>, key: string, expiresAtMs: number, reason: string): void {
  map.set(key, { expiresAtMs: Math.max(expiresAtMs, map.get(key)?.expiresAtMs ?? 0), reason });
}
