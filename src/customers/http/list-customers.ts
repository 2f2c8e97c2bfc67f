import type { CustomerService } from '../customer-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { filtersOf } from './list-filters.js';
import { CustomersV1Response, CUSTOMER_TAGS, ListCustomersQuery } from './customer-schemas.js';
import { customerJson } from './customer-view.js';
import { EXAMPLE_CUSTOMER } from './customer-examples.js';

/** GET /api/customers/: the deprecated v1 list, every customer in one answer. */
export function registerListCustomers(app: TypedApp, customers: CustomerService): void {
  app.get('/api/customers/', {
    schema: {
      summary: 'List customers (v1, deprecated)',
      description:
        "Explo's deprecated v1 list: every customer of the key's environment, oldest first, optionally only the children of parent_provided_id (404 when it names none) or those at hierarchy_level_name. At most 10,000 in one answer: a larger list is a 400 pointing at GET /v2/api/customers/, which pages.",
      tags: CUSTOMER_TAGS,
      deprecated: true,
      querystring: ListCustomersQuery,
      response: {
        200: documented(CustomersV1Response, {
          description: 'The customers.',
          examples: { all: { summary: 'One customer', value: { success: 1, customers: [EXAMPLE_CUSTOMER] } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => {
      const all = await customers.listAll(request.principal, filtersOf(request.query, request.body));
      return { success: 1 as const, customers: all.map(customerJson) };
    },
  });
}
