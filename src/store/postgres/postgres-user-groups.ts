import type { Environment } from '../../kernel/environment.js';
import type { WriteConsequences } from '../../consequences/write-consequences.js';
import type { TokenResealStore } from '../../user-groups/user-group-store.js';
import type { UserGroupRecord } from '../../user-groups/user-group.js';
import type {
  GroupsDeletedConsequences,
  GroupWriteConsequences,
  NewUserGroup,
  TokenReplacement,
  UserGroupChanges,
  UserGroupLineage,
  UserGroupStore,
} from '../../user-groups/user-group-store.js';
import { hasChildrenConflict, renameTaken } from '../../user-groups/user-group-hierarchy.js';
import { PostgresGroupHierarchy, type Transaction } from './postgres-group-hierarchy.js';
import { unknownGroupTags } from '../../group-tags/group-tag.js';
import { customerChanges, groupKey, newGroupColumns } from '../group-columns.js';
import { jsonOrNull } from '../json-column.js';
import { perTurnBatch, type PerTurnBatch } from '../per-turn-batch.js';
import { consequenceParameters } from './postgres-consequences.js';
import type { PostgresQueries } from './postgres-queries.js';
import { toUserGroupRecord, type UserGroupRow } from '../rows.js';
import { batchedWrites, batchParameters } from './postgres-write-batches.js';
import { cachedGroupLookups } from './postgres-group-cache.js';

/** Most groups kept by the lookup cache (about 1 KiB each with small properties), as on SQLite. */
const CACHED_GROUPS = 10_000;

interface GroupCreate {
  group: NewUserGroup;
  consequences: GroupWriteConsequences;
}

interface GroupChange {
  environment: Environment;
  providedId: string;
  changes: UserGroupChanges;
  consequences: GroupWriteConsequences;
}

interface Replacement {
  replacement: TokenReplacement;
  consequences: WriteConsequences;
}

/** One input's columns of insertGroups. */
function insertValues({ group }: GroupCreate, parentTeamId: number | null = null): unknown[] {
  return [...newGroupColumns(group), parentTeamId];
}

/**
 * A create's or an update's consequences, built before the statement with the
 * team_id left open: the statement fills in the written row's (see
 * GroupWriteConsequences), so the write stays one statement.
 */
const ofWrittenRow = ({ consequences }: { consequences: GroupWriteConsequences }) => consequences({ teamId: null });

/** One input's columns of updateGroups. */
function updateValues({ environment, providedId, changes }: GroupChange, parentTeamId: number | null = null): unknown[] {
  return [
    changes.name !== undefined,
    changes.name ?? null,
    changes.mapping !== undefined,
    jsonOrNull(changes.mapping),
    changes.properties !== undefined,
    jsonOrNull(changes.properties),
    changes.updatedAt,
    environment,
    providedId,
    changes.parentId !== undefined,
    parentTeamId,
    ...customerChanges(changes).flat(),
    changes.rename?.providedId ?? null,
    changes.rename?.tokenCiphertext ?? null,
    changes.rename?.expectedTokenHash ?? null,
  ];
}

/** One input's columns of replaceTokens. */
function replaceValues({ replacement: r }: Replacement): unknown[] {
  return [r.tokenHash, r.tokenCiphertext, r.updatedAt, r.teamId, r.expectedTokenHash];
}

const rotatedConsequences = ({ consequences }: Replacement) => consequences;

/**
 * The PostgreSQL `user_groups` table. Every request-path statement is a
 * single statement in autocommit, so no transaction spans a round trip.
 * Concurrent lookups share one query, and concurrent creates, updates and
 * rotations one statement and one commit each (per-turn-batch.ts,
 * postgres-write-batches.ts).
 */
export class PostgresUserGroups implements UserGroupStore, TokenResealStore {
  private readonly groupById: PerTurnBatch<[Environment, string], UserGroupRecord | null>;
  private readonly groupByTokenHash: PerTurnBatch<[Environment, Buffer], UserGroupRecord | null>;
  private readonly insertedGroup: PerTurnBatch<GroupCreate, UserGroupRow | null>;
  private readonly updatedGroup: PerTurnBatch<GroupChange, UserGroupRow | null>;
  private readonly replacedToken: PerTurnBatch<Replacement, UserGroupRow | null>;

  private readonly hierarchy: PostgresGroupHierarchy;

  constructor(private readonly queries: PostgresQueries) {
    this.hierarchy = new PostgresGroupHierarchy(queries);
    this.groupById = perTurnBatch(cachedGroupLookups(queries, CACHED_GROUPS));
    this.groupByTokenHash = perTurnBatch((keys) => this.findGroupsByToken(keys));
    this.insertedGroup = batchedWrites<GroupCreate>(queries, 'insertGroups', (input) => insertValues(input), ofWrittenRow);
    this.updatedGroup = batchedWrites<GroupChange>(
      queries,
      'updateGroups',
      (input) => updateValues(input),
      ofWrittenRow,
      (i) => groupKey(i.environment, i.providedId),
    );
    this.replacedToken = batchedWrites(queries, 'replaceTokens', replaceValues, rotatedConsequences, (i) => String(i.replacement.teamId));
  }

  /** The group (or null) for each token hash, in order. */
  private async findGroupsByToken(keys: readonly (readonly [Environment, Buffer])[]): Promise<(UserGroupRecord | null)[]> {
    const { rows } = await this.queries.query<UserGroupRow>('findGroupsByToken', [
      keys.map(([environment]) => environment),
      keys.map(([, tokenHash]) => tokenHash),
    ]);
    const found = new Map(rows.map((row) => [groupKey(row.environment, row.token_hash.toString('hex')), row]));
    return keys.map(([environment, tokenHash]) => {
      const row = found.get(groupKey(environment, tokenHash.toString('hex')));
      return row ? toUserGroupRecord(row) : null;
    });
  }

  findUserGroup(environment: Environment, providedId: string): Promise<UserGroupRecord | null> {
    return this.groupById([environment, providedId]);
  }

  findUserGroupByTokenHash(environment: Environment, tokenHash: Buffer): Promise<UserGroupRecord | null> {
    return this.groupByTokenHash([environment, tokenHash]);
  }

  async findUserGroupByTeamId(environment: Environment, teamId: number): Promise<UserGroupRecord | null> {
    const row = (await this.queries.query<UserGroupRow>('findGroupByTeamId', [environment, teamId])).rows[0];
    return row ? toUserGroupRecord(row) : null;
  }

  async insertUserGroupIfAbsent(
    group: NewUserGroup,
    consequences: GroupWriteConsequences,
  ): Promise<{ group: UserGroupRecord; created: boolean }> {
    const input = { group, consequences };
    const inserted = group.parentId || hasTags(group.groupTags) ? await this.insertChecked(input) : await this.insertedGroup(input);
    if (inserted) return { group: toUserGroupRecord(inserted), created: true };
    // ON CONFLICT waited for the competing insert to commit, so the row is visible now.
    const existing = await this.findUserGroup(group.environment, group.providedId);
    if (!existing) throw new Error('user group vanished between conflict and read');
    return { group: existing, created: false };
  }

  /** A create under a parent or with tags: in the hierarchy's transaction, checked there; null when the group exists. */
  private insertChecked(input: GroupCreate): Promise<UserGroupRow | null> {
    const { environment, providedId, parentId, groupTags } = input.group;
    return this.hierarchy.inTransaction(
      async (tx) => {
        if ((await tx('findTeamId', [environment, providedId])).rows.length > 0) return null;
        await lockTags(tx, environment, groupTags);
        const parentTeamId = parentId ? await this.hierarchy.placeUnder(tx, environment, { teamId: null, providedId }, parentId) : null;
        return (
          (
            await tx<UserGroupRow>(
              'insertGroups',
              batchParameters([input], (i) => insertValues(i, parentTeamId), ofWrittenRow),
            )
          ).rows[0] ?? null
        );
      },
      { hierarchy: Boolean(parentId) },
    );
  }

  /** A change that sets a parent or tags: in the hierarchy's transaction, checked there. */
  private updateChecked(input: GroupChange): Promise<UserGroupRow | null> {
    const { environment, providedId, changes } = input;
    return this.hierarchy.inTransaction(
      async (tx) => {
        const current = (await tx<{ team_id: number }>('findTeamId', [environment, providedId])).rows[0];
        if (!current) return null;
        await lockTags(tx, environment, changes.groupTags);
        const parentTeamId = changes.parentId
          ? await this.hierarchy.placeUnder(tx, environment, { teamId: Number(current.team_id), providedId }, changes.parentId)
          : null;
        return (
          (
            await tx<UserGroupRow>(
              'updateGroups',
              batchParameters([input], (i) => updateValues(i, parentTeamId), ofWrittenRow),
            )
          ).rows[0] ?? null
        );
      },
      { hierarchy: Boolean(changes.parentId) },
    );
  }

  async updateUserGroup(
    environment: Environment,
    providedId: string,
    changes: UserGroupChanges,
    consequences: GroupWriteConsequences,
  ): Promise<UserGroupRecord | null> {
    const input = { environment, providedId, changes, consequences };
    // A detach (null) cannot close a cycle nor deepen a chain: it needs no check, only its own batch.
    try {
      const row = changes.parentId || hasTags(changes.groupTags) ? await this.updateChecked(input) : await this.updatedGroup(input);
      return row ? toUserGroupRecord(row) : null;
    } catch (error) {
      // The database tells a taken id by its unique key (environment, provided_id): 23505 unique_violation.
      if (changes.rename && (error as { code?: string }).code === '23505') throw renameTaken(environment, changes.rename.providedId);
      throw error;
    }
  }

  async replaceToken(replacement: TokenReplacement, consequences: WriteConsequences): Promise<UserGroupRecord | null> {
    const row = await this.replacedToken({ replacement, consequences });
    return row ? toUserGroupRecord(row) : null;
  }

  async replaceTokenCiphertext(teamId: number, expected: Buffer, next: Buffer): Promise<boolean> {
    return ((await this.queries.query('replaceCiphertext', [next, teamId, expected])).rowCount ?? 0) > 0;
  }

  async listUserGroups(
    environment: Environment,
    page: { beforeTeamId: number; limit: number; prefix?: string; parentId?: string },
  ): Promise<UserGroupRecord[]> {
    const { rows } = await this.queries.query<UserGroupRow>('listGroups', [
      environment,
      page.beforeTeamId,
      page.prefix ?? null,
      page.limit,
      page.parentId ?? null,
    ]);
    return rows.map(toUserGroupRecord);
  }

  async findUserGroupLineage(environment: Environment, providedId: string): Promise<UserGroupLineage | null> {
    const { rows } = await this.queries.query<UserGroupRow>('lineage', [environment, providedId]);
    const chain = rows.map((row, i) => toUserGroupRecord({ ...row, parent_provided_id: rows[i - 1]?.provided_id ?? null }));
    const group = chain.pop();
    return group ? { group, ancestors: chain } : null;
  }

  async listDescendants(
    environment: Environment,
    providedId: string,
    page: { beforeTeamId: number; limit: number },
  ): Promise<UserGroupRecord[]> {
    return (await this.queries.query<UserGroupRow>('descendants', [environment, providedId, page.beforeTeamId, page.limit])).rows.map(
      toUserGroupRecord,
    );
  }

  async countUserGroups(): Promise<Record<Environment, number>> {
    const counts: Record<Environment, number> = { Customer: 0, Testing: 0 };
    for (const row of (await this.queries.query<{ environment: Environment; n: number }>('countGroups', [])).rows)
      counts[row.environment] = row.n;
    return counts;
  }

  async deleteUserGroup(
    environment: Environment,
    providedId: string,
    consequences: GroupsDeletedConsequences,
    options: { cascade?: boolean } = {},
  ): Promise<UserGroupRecord | null> {
    // In the hierarchy's transaction, so no child can be placed under a group being deleted; the
    // subtree's rows stay locked until the deletion commits, so its revocations name the tokens it ends.
    return this.hierarchy.inTransaction(async (tx) => {
      const members = (await tx<UserGroupRow>('subtreeForDeletion', [environment, providedId])).rows.map(toUserGroupRecord);
      const group = members.find((member) => member.providedId === providedId);
      if (!group) return null;
      if (!options.cascade && members.length > 1) throw hasChildrenConflict(providedId);
      await tx('deleteGroups', [members.map((member) => member.teamId), ...consequenceParameters([consequences(members)])]);
      return group;
    });
  }

  async listUserGroupsAfter(afterTeamId: number, limit: number): Promise<UserGroupRecord[]> {
    return (await this.queries.query<UserGroupRow>('listGroupsAfter', [afterTeamId, limit])).rows.map(toUserGroupRecord);
  }
}

const hasTags = (tags: readonly string[] | null | undefined): tags is readonly string[] =>
  tags !== null && tags !== undefined && tags.length > 0;

/**
 * Holds the tags a write gives a group (FOR SHARE) until it commits, and refuses one that does not exist: a tag's
 * rename or deletion, which deletes its row, then waits for this write, and its rewrite of the carriers sees it.
 */
async function lockTags(tx: Transaction, environment: Environment, tags: readonly string[] | null | undefined): Promise<void> {
  if (!hasTags(tags)) return;
  const found = new Set((await tx<{ name: string }>('lockGroupTags', [environment, [...new Set(tags)]])).rows.map((row) => row.name));
  const missing = [...new Set(tags)].filter((tag) => !found.has(tag));
  if (missing.length > 0) throw unknownGroupTags(environment, missing);
}
