/**
 * What the revocation feed said, kept until each entry's expires_at (after
 * which no token it covers can still be live). A lookup is two Map reads.
 */
export class RevocationList {
  /** jti -> expires_at (ms). */
  private readonly sessions = new Map<string, number>();
  /** versionKey(sub, tv) -> expires_at (ms). */
  private readonly versions = new Map<string, number>();
  /** vid -> the latest revocation's second (tokens with an iat up to it are revoked) and when the entry expires (ms). */
  private readonly viewers = new Map<string, { upToIat: number; expiresAtMs: number }>();

  get revokedSessions(): number {
    return this.sessions.size;
  }

  get revokedTokenVersions(): number {
    return this.versions.size;
  }

  get revokedViewers(): number {
    return this.viewers.size;
  }

  revokeSession(jti: string, expiresAtMs: number): void {
    this.sessions.set(jti, Math.max(expiresAtMs, this.sessions.get(jti) ?? 0));
  }

  revokeTokenVersion(sub: string, tv: string, expiresAtMs: number): void {
    const key = versionKey(sub, tv);
    this.versions.set(key, Math.max(expiresAtMs, this.versions.get(key) ?? 0));
  }

  /** Every session of the viewer with an iat up to `upToIat` (the revocation's second), in every group. */
  revokeViewer(vid: string, upToIat: number, expiresAtMs: number): void {
    const known = this.viewers.get(vid);
    this.viewers.set(vid, {
      upToIat: Math.max(upToIat, known?.upToIat ?? -Infinity),
      expiresAtMs: Math.max(expiresAtMs, known?.expiresAtMs ?? 0),
    });
  }

  isRevoked(jti: string, key: string, vid?: string, iat?: number): boolean {
    if (this.sessions.has(jti) || this.versions.has(key)) return true;
    if (vid === undefined || iat === undefined) return false;
    const viewer = this.viewers.get(vid);
    return viewer !== undefined && iat <= viewer.upToIat;
  }

  /** Forgets the entries whose tokens have all expired. */
  prune(nowMs: number): void {
    for (const map of [this.sessions, this.versions]) {
      for (const [key, expiresAtMs] of map) if (expiresAtMs <= nowMs) map.delete(key);
    }
    for (const [vid, { expiresAtMs }] of this.viewers) if (expiresAtMs <= nowMs) this.viewers.delete(vid);
  }
}

/** The (sub, tv) pair as one Map key, computed once per verified token; length-prefixed, so no two pairs share a key. */
export function versionKey(sub: string, tv: string): string {
  return `${tv.length}:${tv}${sub}`;
}
