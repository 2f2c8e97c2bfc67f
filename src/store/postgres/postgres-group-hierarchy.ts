import type pg from 'pg';
import type { Environment } from '../../kernel/environment.js';
import { assertPlacement } from '../../user-groups/user-group-hierarchy.js';
import type { PostgresQueries, StatementName } from './postgres-queries.js';
import { HIERARCHY_LOCK, SQL } from './postgres-statements.js';
import { inTransaction } from './postgres-transaction.js';

/** Named statements run on the connection of one transaction. */
export type Transaction = <Row extends pg.QueryResultRow>(name: StatementName, values: unknown[]) => Promise<pg.QueryResult<Row>>;

/**
 * The writes that change the hierarchy on PostgreSQL (creates under a parent,
 * moves, deletions) run in a transaction that first takes one
 * transaction-scoped advisory lock, so across every replica they run one at a
 * time and each one's checks read what the previous one committed: two moves
 * that would close a cycle together cannot both pass. The lock, unlike
 * SERIALIZABLE, needs no retry loop and leaves every other write (updates,
 * rotations, creates of roots) untouched; such writes are rare.
 */
export class PostgresGroupHierarchy {
  constructor(private readonly queries: PostgresQueries) {}

  /** `work` in one transaction, holding the hierarchy's lock unless `hierarchy` is false (a write that places no parent). */
  async inTransaction<T>(work: (tx: Transaction) => Promise<T>, { hierarchy = true } = {}): Promise<T> {
    return inTransaction(this.queries, async (run) => {
      if (hierarchy) await run(HIERARCHY_LOCK, []);
      return work((name, values) => run({ name: `ugs_${name}`, text: SQL[name] }, values));
    });
  }

  /** The parent's team_id after checking the placement (400 or 409 otherwise); call inside inTransaction. */
  async placeUnder(
    tx: Transaction,
    environment: Environment,
    group: { teamId: number | null; providedId: string },
    parentProvidedId: string,
  ): Promise<number> {
    const parent = (await tx<{ team_id: number }>('findTeamId', [environment, parentProvidedId])).rows[0];
    const parentChain = parent ? (await tx<{ team_id: number }>('groupChain', [parent.team_id])).rows.map((row) => row.team_id) : null;
    const subtreeHeight =
      group.teamId === null ? 1 : Number((await tx<{ height: number | null }>('subtreeHeight', [group.teamId])).rows[0]?.height ?? 1);
    assertPlacement({ teamId: group.teamId, providedId: group.providedId, parentProvidedId, parentChain, subtreeHeight });
    return Number(parent!.team_id);
  }
}
