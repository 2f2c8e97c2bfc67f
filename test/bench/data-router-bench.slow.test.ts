import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { formatDataRouterTable, runDataRouterBench } from '../../bench/data-router.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

/** The data router's benchmark (`npm run bench`'s table, `node dist/bench/data-router.js`), briefly: it runs and prints; no speed. */
describe('the data router benchmark', () => {
  let database: TestDatabase | undefined;
  after(async () => {
    await database?.drop();
  });

  it('measures the three paths on PostgreSQL through the service and prints them with the router’s overhead', async () => {
    database = await createTestDatabase();
    const result = await runDataRouterBench(database.url, 20);
    assert.deepEqual(
      result.figures.map((figure) => figure.path),
      [
        'pg.Pool: pool.query',
        'pg.Pool: connect, withSessionClaims (BEGIN, set_config, the query, COMMIT), release',
        'router.run (the same, routed by the mapping)',
      ],
    );
    for (const figure of result.figures) assert.ok(figure.microsPerQuery > 0 && figure.cpuMicrosPerQuery > 0, JSON.stringify(figure));
    const table = formatDataRouterTable(result);
    assert.match(table, /^\| router\.run \(the same, routed by the mapping\) \| [\d.]+ \| [\d.]+ \|$/m);
    assert.match(table, /^The router's own cost \(routing over the same transaction\): -?[\d.]+ µs/m);
  });
});
