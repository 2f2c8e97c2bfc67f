import { may, readRefusal, type Principal } from '../kernel/principal.js';
import { forbidden } from '../kernel/errors.js';
import type { EventPayload } from './event.js';
import { eventPayload } from './event-payload.js';
import type { EventStore } from './event-store.js';
import type { PositionSeal } from '../kernel/position-seal.js';

const DAY_MS = 86_400_000;

/** An event as a poller sees it: the payload and the id a receiver deduplicates on. */
export type ListedEvent = EventPayload & { id: string };

export interface EventServiceDeps {
  store: EventStore;
  /** How long events are kept (UGS_EVENT_RETENTION_DAYS). */
  retentionDays: number;
  /** The sequence is shared by both environments: cursors are sealed, so they do not count the other's events. */
  positions: PositionSeal;
  now?: () => Date;
}

/**
 * Reading the outbox a page at a time (GET /api/events). The cursor is the
 * sequence of the last event seen, sealed (position-seal.ts): a poller passes
 * back next_cursor and gets what was committed since, in commit order.
 */
export class EventService {
  private readonly now: () => Date;

  constructor(private readonly deps: EventServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** The latest events within the retention, newest first; only the group's when `userGroupId` is given. */
  async recent(principal: Principal, options: { limit: number; userGroupId?: string }): Promise<ListedEvent[]> {
    if (!may(principal, 'read')) throw forbidden(readRefusal(principal, 'events'));
    const notBefore = new Date(this.now().getTime() - this.deps.retentionDays * DAY_MS).toISOString();
    const events = await this.deps.store.listRecentEvents(principal.environment, options.limit, notBefore, options.userGroupId);
    return events.map((event) => ({ id: event.id, ...eventPayload(event) }));
  }

  async list(principal: Principal, page: { after?: string; limit: number }): Promise<{ events: ListedEvent[]; nextCursor: string }> {
    // Embed keys only mint and end sessions: the events name every group of the environment.
    if (!may(principal, 'read')) throw forbidden(readRefusal(principal, 'events'));
    const seal = await this.deps.positions.forEnvironment(principal.environment);
    const after = page.after === undefined ? 0 : seal.openCursor('events', page.after, 'after');
    const notBefore = new Date(this.now().getTime() - this.deps.retentionDays * DAY_MS).toISOString();
    const events = await this.deps.store.listEvents(principal.environment, after, page.limit, notBefore);
    const last = events.at(-1);
    return {
      events: events.map((event) => ({ id: event.id, ...eventPayload(event) })),
      // Unchanged when nothing is new, so a poller always has a cursor to come back with.
      nextCursor: seal.seal('events', last ? last.sequence : after),
    };
  }
}
