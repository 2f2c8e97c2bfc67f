import { may, readRefusal, type Principal } from '../kernel/principal.js';
import { forbidden, invalidRequest, notFound } from '../kernel/errors.js';
import type { UserGroupStore } from '../user-groups/user-group-store.js';
import {
  everyBucket,
  lastDays,
  USAGE_LIMITS,
  usageRange,
  type GroupUsage,
  type UsageBucket,
  type UsageQuery,
  type UsageRange,
} from './usage.js';
import type { UsageStore } from './usage-store.js';

export interface UsageServiceDeps {
  store: UsageStore;
  groups: Pick<UserGroupStore, 'findUserGroup'>;
  now?: () => Date;
}

/** A group's usage over a range: every bucket, zeros included. */
export interface GroupUsageSeries {
  range: UsageRange;
  usage: UsageBucket[];
}

/** A ranked group with its per-day series (the console's trend lines). */
export interface RankedGroupSeries {
  group: GroupUsage;
  days: UsageBucket[];
}

/** The console's charts cover "the last days" as the API's default range and `ugs usage` do. */
const CHART_DAYS: number = USAGE_LIMITS.rangeDefaultDays;

/**
 * Usage: the sessions minted and renewed and the distinct viewers, per group
 * and hour or day, as the embed sessions' flushes counted them (so they lag
 * the mints by at most one flush interval, UGS_ACTIVITY_FLUSH_MS). Read-write
 * and read-only keys read it; embed keys, which only mint, do not.
 */
export class UsageService {
  private readonly now: () => Date;

  constructor(private readonly deps: UsageServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** A group's buckets over the query's range (GET /api/user_groups/{id}/usage). */
  async groupUsage(principal: Principal, providedId: string, query: UsageQuery): Promise<GroupUsageSeries> {
    assertMayRead(principal);
    const range = usageRange(query, this.now());
    return { range, usage: await this.seriesOf(principal, providedId, range) };
  }

  /** The environment's groups ranked by sessions over the query's range, cut by the hour (GET /api/usage). */
  async topGroups(
    principal: Principal,
    query: Omit<UsageQuery, 'granularity'> & { limit?: number },
  ): Promise<{ range: UsageRange; groups: GroupUsage[] }> {
    assertMayRead(principal);
    const limit = query.limit ?? USAGE_LIMITS.topDefault;
    if (!Number.isInteger(limit) || limit < 1 || limit > USAGE_LIMITS.topMax)
      throw invalidRequest(`"limit" must be a whole number from 1 to ${USAGE_LIMITS.topMax}.`);
    const range = usageRange({ from: query.from, to: query.to, granularity: 'hour' }, this.now());
    return { range, groups: await this.deps.store.rankGroups(principal.environment, range, limit) };
  }

  /** A group's last `days` UTC days, today's included (a group's console page). */
  async groupDays(principal: Principal, providedId: string, days = CHART_DAYS): Promise<GroupUsageSeries> {
    assertMayRead(principal);
    const range = lastDays(checkedDays(days), this.now());
    return { range, usage: await this.seriesOf(principal, providedId, range) };
  }

  /** The environment's totals over its last `days` UTC days, today's included (the console's overview). */
  async environmentDays(principal: Principal, days = CHART_DAYS): Promise<GroupUsageSeries> {
    assertMayRead(principal);
    const range = lastDays(checkedDays(days), this.now());
    return { range, usage: everyBucket(range, await this.deps.store.listUsage(principal.environment, null, range)) };
  }

  /** The groups with the most sessions over the last `days` UTC days, each with its per-day series (the overview's trend lines). */
  async topGroupsDays(principal: Principal, days = CHART_DAYS, limit: number = USAGE_LIMITS.topDefault): Promise<RankedGroupSeries[]> {
    assertMayRead(principal);
    const range = lastDays(checkedDays(days), this.now());
    const groups = await this.deps.store.rankGroups(principal.environment, range, Math.min(Math.max(1, limit), USAGE_LIMITS.topMax));
    return Promise.all(
      groups.map(async (group) => ({
        group,
        days: everyBucket(range, await this.deps.store.listUsage(principal.environment, group.teamId, range)),
      })),
    );
  }

  private async seriesOf(principal: Principal, providedId: string, range: UsageRange): Promise<UsageBucket[]> {
    const group = await this.deps.groups.findUserGroup(principal.environment, providedId);
    if (!group)
      throw notFound(
        `No user group with "user_group_id" ${JSON.stringify(providedId)} exists in the ${principal.environment} environment.`,
      );
    return everyBucket(range, await this.deps.store.listUsage(principal.environment, group.teamId, range));
  }
}

function checkedDays(days: number): number {
  if (!Number.isInteger(days) || days < 1 || days > USAGE_LIMITS.rangeMaxDays)
    throw invalidRequest(`The number of days must be a whole number from 1 to ${USAGE_LIMITS.rangeMaxDays}.`);
  return days;
}

function assertMayRead(principal: Principal): void {
  if (!may(principal, 'read')) throw forbidden(readRefusal(principal, 'usage'));
}
