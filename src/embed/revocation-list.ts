/**
 * What the revocation feed said, kept until each entry's expires_at (after
 * which no token it covers can still be live). A lookup is two Map reads.
 */
export class RevocationList {
  /** jti -> expires_at (ms). */
  private readonly sessions = new Map<string, number>();
  /** versionKey(sub, tv) -> expires_at (ms). */
  private readonly versions = new Map<string, number>();

  get revokedSessions(): number {
    return this.sessions.size;
  }

  get revokedTokenVersions(): number {
    return this.versions.size;
  }

  revokeSession(jti: string, expiresAtMs: number): void {
    this.sessions.set(jti, Math.max(expiresAtMs, this.sessions.get(jti) ?? 0));
  }

  revokeTokenVersion(sub: string, tv: string, expiresAtMs: number): void {
    const key = versionKey(sub, tv);
    this.versions.set(key, Math.max(expiresAtMs, this.versions.get(key) ?? 0));
  }

  isRevoked(jti: string, key: string): boolean {
    return this.sessions.has(jti) || this.versions.has(key);
  }

  /** Forgets the entries whose tokens have all expired. */
  prune(nowMs: number): void {
    for (const map of [this.sessions, this.versions]) {
      for (const [key, expiresAtMs] of map) if (expiresAtMs <= nowMs) map.delete(key);
    }
  }
}

/** The (sub, tv) pair as one Map key, computed once per verified token; length-prefixed, so no two pairs share a key. */
export function versionKey(sub: string, tv: string): string {
  return `${tv.length}:${tv}${sub}`;
}
