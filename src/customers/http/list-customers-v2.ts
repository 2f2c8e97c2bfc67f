import type { CustomerService } from '../customer-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import { invalidRequest } from '../../kernel/errors.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { filtersOf } from './list-filters.js';
import { CUSTOMER_LIMITS } from '../customer.js';
import { CustomersV2Response, CUSTOMER_TAGS, ListCustomersV2Query } from './customer-schemas.js';
import { customerJson } from './customer-view.js';
import { EXAMPLE_CUSTOMER } from './customer-examples.js';

/** GET /v2/api/customers/: numbered pages of customers with the total. */
export function registerListCustomersV2(app: TypedApp, customers: CustomerService): void {
  app.get('/v2/api/customers/', {
    schema: {
      summary: 'List customers (v2)',
      description:
        "Explo's v2 list: one page of the key's environment's customers, oldest first (page from 1, page_size default 20, at most 1000; pageSize is read as page_size, as the reference's own example spells it), and total_count, the number the filters keep, from the same snapshot. A page past the last is empty. parent_provided_id keeps the children of that customer (404 when it names none); hierarchy_level_name those at that level.",
      tags: CUSTOMER_TAGS,
      querystring: ListCustomersV2Query,
      response: {
        200: documented(CustomersV2Response, {
          description: 'One page and the total.',
          examples: {
            page: { summary: 'The first page', value: { success: 1, total_count: 1, results: { customers: [EXAMPLE_CUSTOMER] } } },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => {
      const { page, page_size, pageSize } = request.query;
      if (page_size !== undefined && pageSize !== undefined && page_size !== pageSize) {
        throw invalidRequest('"page_size" and "pageSize" are the same parameter and differ here: send one.');
      }
      const { customers: shown, total } = await customers.list(request.principal, filtersOf(request.query, request.body), {
        page: page ?? 1,
        pageSize: page_size ?? pageSize ?? CUSTOMER_LIMITS.pageSizeDefault,
      });
      // success: 1 as in every other answer (the reference's v2 example has none; its clients read past it).
      return { success: 1 as const, total_count: total, results: { customers: shown.map(customerJson) } };
    },
  });
}
