// Cube's queryRewrite for sessions of the user group service: every query of the orders cube is bound to the
// session's group (`sub`), its subtree when the session was minted with include_descendants (`desc`), and, for a
// viewer minted with a `region` attribute (`vat`), to that region. A context without a group is refused.
const TENANT = 'orders.tenant_id';
const REGION = 'orders.region';

function bindQueryToSession(query, securityContext) {
  const group = securityContext && securityContext.sub;
  if (typeof group !== 'string' || group === '') throw new Error('No user group in the security context');
  const groups = [group, ...(Array.isArray(securityContext.desc) ? securityContext.desc : [])];
  const filters = [...(query.filters || []), { member: TENANT, operator: 'equals', values: groups }];
  const region = securityContext.vat && securityContext.vat.region;
  if (region !== undefined) filters.push({ member: REGION, operator: 'equals', values: [String(region)] });
  return { ...query, filters };
}

module.exports = { bindQueryToSession };
