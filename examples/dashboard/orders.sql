-- The example dashboard's queries in --postgres mode (examples/dashboard/postgres-orders.ts runs these), for
-- `ugs isolation-check --queries examples/dashboard/orders.sql`. None filters by tenant: the policy keeps the rest out.
-- The totals are per tenant (the dashboard sums them), so the check can tell whose each total is.
SELECT id, ordered_on::text AS ordered_on, region, sales_rep, customer, product, amount_cents FROM orders ORDER BY ordered_on, id;
SELECT tenant_id, count(*)::int AS orders, sum(amount_cents)::int AS revenue_cents FROM orders GROUP BY tenant_id ORDER BY tenant_id;
-- A viewer's view: narrowed to the viewer's sales_rep attribute (ugs.viewer_prop).
SELECT id, ordered_on::text AS ordered_on, region, sales_rep, customer, product, amount_cents FROM orders WHERE sales_rep = ugs.viewer_prop('sales_rep') ORDER BY ordered_on, id;
SELECT tenant_id, count(*)::int AS orders, sum(amount_cents)::int AS revenue_cents FROM orders WHERE sales_rep = ugs.viewer_prop('sales_rep') GROUP BY tenant_id ORDER BY tenant_id;
