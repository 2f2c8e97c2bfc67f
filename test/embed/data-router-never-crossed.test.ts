import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PoolClient } from 'pg';
import { DataRouterError, type EmbedClaims } from 'user-group-service/embed';
import { buildForSuite } from '../helpers/build.js';
import { waitFor } from './fake-embed-service.js';
import { routerFixture } from './router-fixture.js';
import { createTenantDatabase, routerConnections, type TenantDatabase } from './tenant-databases.js';

/**
 * Issue 39, item 6: never crossed. Hundreds of sessions of six groups, minted by the service, run interleaved
 * and concurrently through one router over four real PostgreSQL databases: acme, globex and umbrella each in
 * a database of their own, initech, its sub-group initech-emea and hooli in a shared one under row policies.
 * Meanwhile the data sources change: acme's and the shared one's move to the other role (the shared one to
 * another host name too), globex's moves there and back, umbrella's is deleted. The router is kept short of
 * pools (3 for 4 data sources), so pools are retired and reopened under load as well.
 *
 * Every run reports, for every row it read, the database it came from and its tenant; the test asserts that
 * every run that succeeded read exactly its own group's rows (its subtree's in the shared database) in its
 * own group's database, as the role the data source named no more than refreshMs before the run began; and
 * that every run against umbrella's data source that began refreshMs after its deletion got
 * unresolved_data_source, with fn never called and no row.
 */

const REFRESH_MS = 100;
const SESSIONS_PER_GROUP = 40;
const RUNS_PER_SESSION = 5;
const CONCURRENCY = 48;

interface Row {
  tenant: string;
  db: string;
  role: string;
  group: string | null;
}

interface Outcome {
  group: string;
  startedAt: number;
  endedAt: number;
  rows: Row[] | undefined;
  error: unknown;
  fnCalled: boolean;
}

/**
 * A change to a data source, made once `afterRuns` runs have ended: `sentAt` when it was asked of the service,
 * `doneAt` when the service answered. `role`: the role index the data source names from then on (none: deleted).
 */
interface Change {
  dataSource: string;
  afterRuns: number;
  role?: 0 | 1;
  apply(): Promise<void>;
  sentAt?: number;
  doneAt?: number;
}

/** Two statements with a turn of the event loop between them, so other sessions' statements interleave. */
async function readRows(client: PoolClient): Promise<Row[]> {
  const first = await client.query<{ group: string | null }>('SELECT ugs.user_group_id() AS "group"');
  await new Promise((resolve) => setImmediate(resolve));
  const { rows } = await client.query<{ tenant: string; db: string; role: string }>(
    'SELECT tenant_id AS tenant, current_database() AS db, current_user AS role FROM orders ORDER BY tenant_id',
  );
  return rows.map((row) => ({ ...row, group: first.rows[0]!.group }));
}

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

describe('data router: never crossed (issue 39, item 6)', () => {
  const service = buildForSuite();
  const fixture = routerFixture(service);
  let acme: TenantDatabase;
  let globex: TenantDatabase;
  let umbrella: TenantDatabase;
  let shared: TenantDatabase;

  before(async () => {
    [acme, globex, umbrella, shared] = await Promise.all([
      createTenantDatabase({ acme: 5 }),
      createTenantDatabase({ globex: 4 }),
      createTenantDatabase({ umbrella: 3 }),
      createTenantDatabase({ initech: 3, 'initech-emea': 2, hooli: 2 }, { shared: true }),
    ]);
    await fixture.createDataSource('acme-db', acme.connection(0));
    await fixture.createDataSource('globex-db', globex.connection(0));
    await fixture.createDataSource('umbrella-db', umbrella.connection(0));
    await fixture.createDataSource('shared-db', shared.connection(0));
    await fixture.group('acme', { sales: 'acme-db' });
    await fixture.group('globex', { sales: 'globex-db' });
    await fixture.group('umbrella', { sales: 'umbrella-db' });
    await fixture.group('initech', { sales: 'shared-db' });
    await fixture.group('initech-emea', null, { parent: 'initech' });
    await fixture.group('hooli', { sales: 'shared-db' });
  });
  after(async () => {
    for (const database of [acme, globex, umbrella, shared]) await database?.drop();
  });

  it('hundreds of interleaved sessions of six groups over four databases, data sources updated and deleted meanwhile: every row from its own group', async (t) => {
    const home: Record<string, { database: TenantDatabase; dataSource: string; tenants: string[] }> = {
      acme: { database: acme, dataSource: 'acme-db', tenants: ['acme'] },
      globex: { database: globex, dataSource: 'globex-db', tenants: ['globex'] },
      umbrella: { database: umbrella, dataSource: 'umbrella-db', tenants: ['umbrella'] },
      initech: { database: shared, dataSource: 'shared-db', tenants: ['initech', 'initech-emea'] },
      'initech-emea': { database: shared, dataSource: 'shared-db', tenants: ['initech-emea'] },
      hooli: { database: shared, dataSource: 'shared-db', tenants: ['hooli'] },
    };
    const sessions: EmbedClaims[] = [];
    for (let i = 0; i < SESSIONS_PER_GROUP; i++) for (const group of Object.keys(home)) sessions.push(await fixture.claims(group));
    const planned = shuffled(sessions.flatMap((session) => Array.from({ length: RUNS_PER_SESSION }, () => session)));

    const total = planned.length;
    const changes: Record<string, Change> = {
      acme: {
        dataSource: 'acme-db',
        afterRuns: total * 0.2,
        role: 1,
        apply: () => fixture.updateDataSource('acme-db', acme.connection(1)),
      },
      shared: {
        dataSource: 'shared-db',
        afterRuns: total * 0.3,
        role: 1,
        apply: () => fixture.updateDataSource('shared-db', { ...shared.connection(1), host: 'localhost' }),
      },
      umbrella: { dataSource: 'umbrella-db', afterRuns: total * 0.4, apply: () => fixture.deleteDataSource('umbrella-db') },
      globexThere: {
        dataSource: 'globex-db',
        afterRuns: total * 0.5,
        role: 1,
        apply: () => fixture.updateDataSource('globex-db', globex.connection(1)),
      },
      globexBack: {
        dataSource: 'globex-db',
        afterRuns: total * 0.7,
        role: 0,
        apply: () => fixture.updateDataSource('globex-db', globex.connection(0)),
      },
    };
    /**
     * The roles a run may connect as: the one its data source named refreshMs before the run began (the last change
     * answered by then, or the first settings), and that of any change asked of the service before the run ended
     * (a run may see a change early, never late).
     */
    const rolesAllowed = (group: string, { startedAt, endedAt }: Outcome): string[] => {
      const { database, dataSource } = home[group]!;
      const own = Object.values(changes).filter((change) => change.dataSource === dataSource);
      const due = own.filter((change) => change.doneAt! + REFRESH_MS <= startedAt).at(-1);
      const early = own.filter((change) => change.doneAt! + REFRESH_MS > startedAt && change.sentAt! <= endedAt);
      return [due?.role ?? 0, ...early.map((change) => change.role)].map((index) => database.roles[index ?? 0].name);
    };

    const router = await fixture.router({ refreshMs: REFRESH_MS, maxPools: 3, maxConnectionsPerPool: 4 });
    const outcomes: Outcome[] = [];
    let ended = 0;
    const operator = (async () => {
      for (const change of Object.values(changes)) {
        await waitFor(`${change.afterRuns} runs to end`, () => ended >= change.afterRuns);
        change.sentAt = Date.now();
        await change.apply();
        change.doneAt = Date.now();
      }
    })();
    // The planned runs, then more rounds until every change is older than refreshMs, then one last round of every session.
    let next = 0;
    let finalRound: EmbedClaims[] | undefined;
    const take = (): EmbedClaims | undefined => {
      if (next < planned.length) return planned[next++];
      const settled = Object.values(changes).every((change) => change.doneAt !== undefined && Date.now() >= change.doneAt + REFRESH_MS);
      if (!settled) return sessions[next++ % sessions.length];
      finalRound ??= shuffled(sessions);
      return finalRound.pop();
    };
    const worker = async () => {
      for (let session = take(); session !== undefined; session = take()) {
        const outcome: Outcome = {
          group: session.sub,
          startedAt: Date.now(),
          endedAt: 0,
          rows: undefined,
          error: undefined,
          fnCalled: false,
        };
        try {
          outcome.rows = await router.run(session, 'sales', (client) => {
            outcome.fnCalled = true;
            return readRows(client);
          });
        } catch (error) {
          outcome.error = error;
        }
        outcome.endedAt = Date.now();
        outcomes.push(outcome);
        ended++;
      }
    };
    await Promise.all([operator, ...Array.from({ length: CONCURRENCY }, worker)]);

    let refused = 0;
    const deletion = changes.umbrella!;
    for (const outcome of outcomes) {
      const { group, startedAt, endedAt, rows, error, fnCalled } = outcome;
      const { database, tenants } = home[group]!;
      if (error !== undefined) {
        assert.ok(group === 'umbrella', `${group}'s run failed: ${String(error)}`);
        assert.ok(error instanceof DataRouterError && error.code === 'unresolved_data_source', String(error));
        assert.ok(endedAt >= deletion.sentAt!, 'refused before its data source was deleted');
        assert.equal(fnCalled, false);
        refused++;
        continue;
      }
      assert.ok(rows !== undefined);
      assert.ok(!(group === 'umbrella' && startedAt >= deletion.doneAt! + REFRESH_MS), 'a run against the deleted data source read rows');
      const expected = Object.entries(database.rows)
        .flatMap(([tenant, count]) => (tenants.includes(tenant) ? Array<string>(count).fill(tenant) : []))
        .sort();
      assert.deepEqual(
        rows.map((row) => row.tenant),
        expected,
        `${group} read other rows than its own`,
      );
      const allowed = rolesAllowed(group, outcome);
      for (const row of rows) {
        assert.equal(row.db, database.name, `${group} read a row of another database`);
        assert.equal(row.group, group, `${group}'s transaction carried another group's claims`);
        assert.ok(
          allowed.includes(row.role),
          `${group} connected as ${row.role}, not ${allowed.join(' or ')}: another database's role, or settings older than refreshMs`,
        );
      }
    }

    // Enough of everything for the assertions above to have meant something.
    assert.ok(sessions.length >= 200 && outcomes.length >= total, `${sessions.length} sessions, ${outcomes.length} runs`);
    for (const group of Object.keys(home)) {
      const last = outcomes.filter((outcome) => outcome.group === group && outcome.startedAt >= changes.globexBack!.doneAt! + REFRESH_MS);
      assert.ok(last.length >= SESSIONS_PER_GROUP, `${group}: ${last.length} runs after every change`);
    }
    assert.ok(refused >= SESSIONS_PER_GROUP, `${refused} runs refused after umbrella's data source was deleted`);
    t.diagnostic(`${sessions.length} sessions, ${outcomes.length} runs, ${refused} refused (unresolved_data_source)`);
    await waitFor("the deleted data source's pool to close", async () => (await routerConnections(umbrella)).length === 0);
  });
});
