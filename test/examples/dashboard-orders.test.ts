import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { openDemoOrders } from '../../examples/dashboard/demo-orders.js';

/** The example dashboard's queries: a session's region, narrowed to its sales rep when its props carry one, each bound as a parameter. */
describe('example dashboard: the demo orders a session sees', () => {
  const orders = openDemoOrders();
  after(() => orders.close());
  const claims = (props: Record<string, string>) => ({ sub: 'acme', tid: 1, props });

  it("without a sales_rep, the whole region's 12 orders, of every rep", async () => {
    const view = await orders.viewFor(claims({ region: 'eu' }));
    assert.equal(view.salesRep, null);
    assert.equal(view.rows.length, 12);
    assert.equal(view.totals.orders, 12);
    assert.deepEqual(new Set(view.rows.map((row) => row.region)), new Set(['eu']));
    assert.deepEqual(new Set(view.rows.map((row) => row.sales_rep)), new Set(['ana', 'ben', 'cleo']));
  });

  it("with a sales_rep, only that rep's orders of the region, and the totals of those", async () => {
    const region = await orders.viewFor(claims({ region: 'eu' }));
    const ana = await orders.viewFor(claims({ region: 'eu', sales_rep: 'ana' }));
    const ben = await orders.viewFor(claims({ region: 'eu', sales_rep: 'ben' }));
    for (const [rep, view] of [
      ['ana', ana],
      ['ben', ben],
    ] as const) {
      assert.equal(view.salesRep, rep);
      assert.equal(view.rows.length, 4, `${rep}: ${view.rows.length} rows`);
      assert.ok(view.rows.every((row) => row.sales_rep === rep && row.region === 'eu'));
      const expected = region.rows.filter((row) => row.sales_rep === rep);
      assert.deepEqual(view.rows, expected);
      assert.deepEqual(view.totals, { orders: 4, revenue_cents: expected.reduce((sum, row) => sum + row.amount_cents, 0) });
    }
    assert.deepEqual(
      ana.rows.filter((row) => ben.rows.some((other) => other.id === row.id)),
      [],
    );
  });

  it('a sales_rep that reads as SQL is a value: it matches no order', async () => {
    for (const rep of ["ana' OR '1'='1", 'ana OR 1=1', "x'; DROP TABLE orders; --"]) {
      const view = await orders.viewFor(claims({ region: 'eu', sales_rep: rep }));
      assert.deepEqual(view.rows, [], rep);
      assert.equal(view.totals.orders, 0);
    }
    assert.equal((await orders.viewFor(claims({ region: 'eu' }))).rows.length, 12, 'the table is still there');
  });
});
