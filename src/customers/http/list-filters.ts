import { Value } from '@sinclair/typebox/value';
import { invalidRequest } from '../../kernel/errors.js';
import type { CustomerFilter } from '../customer-store.js';
import { ListCustomersBody, type ListCustomersFilters } from './customer-schemas.js';

/**
 * A list's filters from the query string, or from a JSON body sent with the GET, where the reference's v1 page
 * declares them: read there too rather than ignored (the route declares no body, so that HEAD is served beside it
 * as beside every GET, and checks one here). The same filter in both must agree.
 */
export function filtersOf(query: ListCustomersFilters, body: unknown): CustomerFilter {
  if (body !== undefined && !Value.Check(ListCustomersBody, body)) {
    throw invalidRequest('A body sent with this GET may hold only "parent_provided_id" and "hierarchy_level_name", each a string.');
  }
  const inBody = body as ListCustomersFilters | undefined;
  const pick = (field: keyof ListCustomersFilters) => {
    const fromQuery = query[field];
    const fromBody = inBody?.[field];
    if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) {
      throw invalidRequest(`"${field}" is given in the query string and in the body with different values: send it once.`);
    }
    return fromQuery ?? fromBody;
  };
  return { parentId: pick('parent_provided_id'), hierarchyLevel: pick('hierarchy_level_name') };
}
