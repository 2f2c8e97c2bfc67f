import type { Environment } from '../../kernel/environment.js';
import type { UserGroupRecord } from '../../user-groups/user-group.js';
import { toUserGroupRecord, type UserGroupRow } from '../rows.js';
import { VersionedReadCache } from '../versioned-read-cache.js';
import { groupKey } from '../group-columns.js';
import type { PostgresQueries } from './postgres-queries.js';

/**
 * Groups by id, kept between lookups for as long as the database proves
 * nothing changed: every batch of lookups is still one statement, which
 * returns its own snapshot (`pg_current_snapshot()`: the oldest running
 * transaction, the next one to end, the ones running) and reads only the keys
 * the cache does not hold at that snapshot. A snapshot equal to the one the
 * kept groups were read at means no transaction of the cluster committed or
 * aborted in between (a transaction that ends either leaves the running list
 * or moves the upper bound, which never goes back), so they are the table's
 * rows now; any other snapshot reads every key of the batch again and forgets
 * the rest. An answer is therefore exact in every replica on the database, the
 * moment a write commits, without notifications or expiry; what the cache
 * saves is the rows: their transfer, parsing and mapping, which were most of
 * the PostgreSQL hit's extra cost over SQLite's (docs/performance.md).
 *
 * Any write in the cluster, to any table or database, forgets the cache: a
 * busy cluster gets fewer hits, never a stale answer.
 */
export function cachedGroupLookups(
  queries: PostgresQueries,
  maxGroups: number,
): (keys: readonly (readonly [Environment, string])[]) => Promise<(UserGroupRecord | null)[]> {
  const cache = new VersionedReadCache<UserGroupRecord>(maxGroups);
  return async (keys) => {
    // What the cache holds as the statement goes out: another batch's answer may replace it before this one returns.
    const sentAt = cache.version;
    const kept = keys.map(([environment, providedId]) => (sentAt === undefined ? undefined : cache.get(groupKey(environment, providedId))));
    const { rows } = await queries.query<UserGroupRow & { snapshot: string }>('findGroupsUnlessKept', [
      keys.map(([environment]) => environment),
      keys.map(([, providedId]) => providedId),
      kept.map((record) => record !== undefined),
      sentAt ?? null,
    ]);
    const snapshot = rows[0]!.snapshot;
    const unchanged = snapshot === sentAt;
    cache.at(snapshot);
    const read = new Map<string, UserGroupRow>();
    for (const row of rows) if (row.team_id !== null) read.set(groupKey(row.environment, row.provided_id), row);
    return keys.map(([environment, providedId], i) => {
      const held = kept[i];
      if (unchanged && held !== undefined) return held;
      const row = read.get(groupKey(environment, providedId));
      // An absent group is not kept: the next lookup of it is most likely its creation's.
      return row ? cache.keep(groupKey(environment, providedId), toUserGroupRecord(row)) : null;
    });
  };
}
