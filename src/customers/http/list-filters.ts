import { invalidRequest } from '../../kernel/errors.js';
import type { CustomerFilter } from '../customer-store.js';
import type { ListCustomersFilters } from './customer-schemas.js';

/** A list's filters from the query string or a JSON body (both validated by the route); the same filter in both must agree. */
export function filtersOf(query: ListCustomersFilters, body: ListCustomersFilters | undefined): CustomerFilter {
  const pick = (field: keyof ListCustomersFilters) => {
    const inQuery = query[field];
    const inBody = body?.[field];
    if (inQuery !== undefined && inBody !== undefined && inQuery !== inBody) {
      throw invalidRequest(`"${field}" is given in the query string and in the body with different values: send it once.`);
    }
    return inQuery ?? inBody;
  };
  return { parentId: pick('parent_provided_id'), hierarchyLevel: pick('hierarchy_level_name') };
}
