// Cube's queryRewrite for sessions of the user group service: every query of the orders cube is bound to the
// session's group (`sub`), and to its subtree when the session was minted with include_descendants (`desc`); a
// viewer minted with a `region` attribute (`vat`) is narrowed to that region on top. A context without a group
// (Cube's built-in check lets requests through without one outside production) is refused with Cube's 403.
const { CubejsHandlerError } = require('@cubejs-backend/api-gateway');

const TENANT = 'orders.tenant_id';
const REGION = 'orders.region';

function refuse(message) {
  return new CubejsHandlerError(403, 'Forbidden', message);
}

// A viewer's attribute as filter values: a string or number, or a list of them; null hides it (no narrowing).
function attributeValues(value) {
  if (value === undefined || value === null) return undefined;
  const values = Array.isArray(value) ? value : [value];
  if (values.length === 0 || !values.every((v) => typeof v === 'string' || typeof v === 'number')) {
    throw refuse('The viewer attribute "region" is not a string, a number or a list of them');
  }
  return values.map(String);
}

function bindQueryToSession(query, securityContext) {
  const group = securityContext && securityContext.sub;
  if (typeof group !== 'string' || group === '') throw refuse('No user group in the security context');
  const groups = [group, ...(Array.isArray(securityContext.desc) ? securityContext.desc : [])];
  const filters = [...(query.filters || []), { member: TENANT, operator: 'equals', values: groups }];
  const regions = attributeValues(securityContext.vat && securityContext.vat.region);
  if (regions) filters.push({ member: REGION, operator: 'equals', values: regions });
  return { ...query, filters };
}

module.exports = { bindQueryToSession };
