-- The example dashboard's queries in --postgres mode (examples/dashboard/postgres-orders.ts runs these), for
-- `ugs isolation-check --queries examples/dashboard/orders.sql`. None names the tenant: the policy keeps the rest out.
SELECT id, ordered_on::text AS ordered_on, region, sales_rep, customer, product, amount_cents FROM orders ORDER BY ordered_on, id;
SELECT count(*)::int AS orders, coalesce(sum(amount_cents), 0)::int AS revenue_cents FROM orders;
-- A viewer's view: narrowed to the viewer's sales_rep attribute (ugs.viewer_prop).
SELECT id, ordered_on::text AS ordered_on, region, sales_rep, customer, product, amount_cents FROM orders WHERE sales_rep = ugs.viewer_prop('sales_rep') ORDER BY ordered_on, id;
SELECT count(*)::int AS orders, coalesce(sum(amount_cents), 0)::int AS revenue_cents FROM orders WHERE sales_rep = ugs.viewer_prop('sales_rep');
