import { describeFetchError } from './describe-fetch-error.js';
import type { EmbedEnvironment } from './embed-verifier-options.js';
import { RevocationList } from './revocation-list.js';

/** The feed's largest page: fewer round trips when a verifier starts from the oldest entry. */
const PAGE_SIZE = 1000;
const FETCH_TIMEOUT_MS = 5_000;

export interface RevocationFeedStatus {
  /** Whether the feed is polled (an apiKey was given). */
  readonly enabled: boolean;
  /** When the last poll that read the feed to its end began (every revocation made before then is known); null before the first success. */
  readonly syncedAt: Date | null;
  readonly lastError: string | null;
  readonly lastErrorAt: Date | null;
  /** Entries held: sessions revoked one by one, and (group, token version) pairs revoked by a rotation or deletion. */
  readonly revokedSessions: number;
  readonly revokedTokenVersions: number;
  /** Viewers whose sessions were ended (DELETE /api/viewers/{id}/sessions). */
  readonly revokedViewers: number;
  /** Whether verify() refuses every token (revocations_unavailable): the feed was never read, or not within maxRevocationStalenessMs. */
  readonly stale: boolean;
  /** Whether the feed's last answer to a poll was 401 or 403: the API key is wrong or revoked (cleared by the next successful read). */
  readonly apiKeyRefused: boolean;
}

/** The feed refused the API key: unlike an outage, this does not pass by itself. */
class ApiKeyRefusedError extends Error {
  override name = 'ApiKeyRefusedError';
}

interface WireRevocation {
  session_id?: unknown;
  user_group_id?: unknown;
  token_version?: unknown;
  viewer_id?: unknown;
  reason?: unknown;
  revoked_at?: unknown;
  expires_at?: unknown;
}

interface WirePage {
  environment: EmbedEnvironment;
  revocations: WireRevocation[];
  next_cursor: string;
}

/**
 * Polls GET /api/embed_sessions/revocations into a RevocationList: from the
 * oldest entry on the first poll, then from the cursor it reached, page after
 * page until a short one. A failed poll is recorded and retried at the next
 * tick; it never throws into the caller. The timer is unref'd: a verifier
 * never keeps a process alive.
 */
export class RevocationFeed {
  readonly list = new RevocationList();
  /** Settles (never rejects) when the first poll succeeded or failed. */
  readonly firstPoll: Promise<void>;
  /** The API key's environment, as the feed names it; undefined until a page was read. The feed says nothing of the other one. */
  environment: EmbedEnvironment | undefined;
  private cursor: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private syncedAt: number | undefined;
  private lastError: string | null = null;
  private lastErrorAt: number | undefined;
  /** How the feed refused the API key (401 or 403), until a read succeeds. */
  private keyRefusal: string | undefined;

  constructor(
    private readonly url: URL,
    private readonly apiKey: string,
    private readonly intervalMs: number,
    private readonly maxStalenessMs: number,
    private readonly closed: AbortSignal,
  ) {
    this.firstPoll = this.poll();
  }

  /** Stops polling; resolves once a poll under way has stopped. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    await this.inFlight;
  }

  status(): RevocationFeedStatus {
    return {
      enabled: true,
      syncedAt: this.syncedAt === undefined ? null : new Date(this.syncedAt),
      lastError: this.lastError,
      lastErrorAt: this.lastErrorAt === undefined ? null : new Date(this.lastErrorAt),
      revokedSessions: this.list.revokedSessions,
      revokedTokenVersions: this.list.revokedTokenVersions,
      revokedViewers: this.list.revokedViewers,
      stale: this.unavailable(Date.now()) !== undefined,
      apiKeyRefused: this.keyRefusal !== undefined,
    };
  }

  /**
   * Why the list cannot be trusted to hold every revocation now (never read,
   * or not for longer than the staleness bound), in words for the refusal;
   * undefined while it can.
   */
  unavailable(nowMs: number): string | undefined {
    if (this.syncedAt !== undefined && nowMs - this.syncedAt <= this.maxStalenessMs) return undefined;
    const since =
      this.syncedAt === undefined
        ? 'has never been read'
        : `was last read at ${new Date(this.syncedAt).toISOString()}, more than maxRevocationStalenessMs (${this.maxStalenessMs} ms) ago`;
    if (this.keyRefusal !== undefined) {
      const later = this.lastError === this.keyRefusal ? '' : `; since: ${this.lastError}`;
      return `the revocation feed refuses this verifier's API key (${this.keyRefusal}${later}): the key is wrong, revoked or not allowed to read the feed, which will not pass by itself; give the verifier a valid API key of the environment. Every token is refused meanwhile: the feed ${since}`;
    }
    return `the revocation feed ${since} (${this.lastError ?? 'no answer yet'}); every token is refused until it is read again (retried every ${this.intervalMs} ms)`;
  }

  private poll(): Promise<void> {
    const startedAt = Date.now();
    this.inFlight = this.readToEnd()
      .then(
        (skipped) => {
          this.syncedAt = startedAt;
          this.keyRefusal = undefined;
          if (skipped > 0) this.fail(`${skipped} malformed revocation entries were skipped`);
        },
        (error: unknown) => {
          this.fail(describeFetchError(error));
          // Kept until a read succeeds: the 429s a refused key earns later do not make it good.
          if (error instanceof ApiKeyRefusedError) this.keyRefusal = this.lastError!;
        },
      )
      .finally(() => {
        this.inFlight = undefined;
        if (this.closed.aborted) return;
        this.timer = setTimeout(() => void this.poll(), this.intervalMs);
        this.timer.unref();
      });
    return this.inFlight;
  }

  private fail(message: string): void {
    this.lastError = message;
    this.lastErrorAt = Date.now();
  }

  /** Reads every page after the cursor; the cursor advances page by page, so a failure midway keeps what was read. */
  private async readToEnd(): Promise<number> {
    let skipped = 0;
    for (;;) {
      const page = await this.fetchPage();
      this.environment = page.environment;
      for (const entry of page.revocations) if (!this.apply(entry)) skipped++;
      const done = page.revocations.length < PAGE_SIZE || page.next_cursor === this.cursor;
      this.cursor = page.next_cursor;
      if (done) break;
    }
    this.list.prune(Date.now());
    return skipped;
  }

  private async fetchPage(): Promise<WirePage> {
    const url = new URL(this.url);
    url.searchParams.set('limit', String(PAGE_SIZE));
    if (this.cursor !== undefined) url.searchParams.set('after', this.cursor);
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${this.apiKey}`, accept: 'application/json' },
      // A redirect must not carry the API key anywhere else.
      redirect: 'error',
      signal: AbortSignal.any([this.closed, AbortSignal.timeout(FETCH_TIMEOUT_MS)]),
    });
    const text = await response.text();
    if (response.status === 401 || response.status === 403)
      throw new ApiKeyRefusedError(`the revocation feed answered HTTP ${response.status}${errorCodeOf(text)}`);
    if (response.status !== 200) throw new Error(`the revocation feed answered HTTP ${response.status}${errorCodeOf(text)}`);
    const body = JSON.parse(text) as Partial<WirePage> | null;
    if (!Array.isArray(body?.revocations) || typeof body.next_cursor !== 'string') {
      throw new Error('the revocation feed answered without "revocations" and "next_cursor"');
    }
    if (body.environment !== 'Customer' && body.environment !== 'Testing') {
      // Without it, this verifier cannot tell which tokens the feed's silence vouches for.
      throw new Error('the revocation feed answered without its "environment" (Customer or Testing)');
    }
    return body as WirePage;
  }

  /** False for an entry this verifier cannot act on. */
  private apply(entry: WireRevocation): boolean {
    if (typeof entry !== 'object' || entry === null || typeof entry.expires_at !== 'string') return false;
    const expiresAtMs = Date.parse(entry.expires_at);
    if (Number.isNaN(expiresAtMs)) return false;
    // Kept to say why a session ended; a reason this verifier does not know yet is kept as it is.
    const reason = typeof entry.reason === 'string' ? entry.reason : undefined;
    if (typeof entry.session_id === 'string') {
      this.list.revokeSession(entry.session_id, expiresAtMs, reason);
      return true;
    }
    if (typeof entry.user_group_id === 'string' && typeof entry.token_version === 'string') {
      this.list.revokeTokenVersion(entry.user_group_id, entry.token_version, expiresAtMs, reason);
      return true;
    }
    const revokedAtMs = typeof entry.revoked_at === 'string' ? Date.parse(entry.revoked_at) : Number.NaN;
    if (typeof entry.viewer_id === 'string' && !Number.isNaN(revokedAtMs)) {
      this.list.revokeViewer(entry.viewer_id, Math.floor(revokedAtMs / 1000), expiresAtMs, reason);
      return true;
    }
    return false;
  }
}

/** " (unauthenticated)" from the service's error envelope, to say why without quoting a whole body. */
function errorCodeOf(text: string): string {
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } } | null)?.error?.code;
    return typeof code === 'string' ? ` (${code})` : '';
  } catch {
    return '';
  }
}
