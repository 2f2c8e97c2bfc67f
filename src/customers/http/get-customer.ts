import type { CustomerService } from '../customer-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { CustomerResponse, CUSTOMER_TAGS, ProvidedIdBody } from './customer-schemas.js';
import { customerJson } from './customer-view.js';
import { EXAMPLE_CUSTOMER } from './customer-examples.js';

/** POST /api/get_customer/: one customer by provided_id. */
export function registerGetCustomer(app: TypedApp, customers: CustomerService): void {
  app.post('/api/get_customer/', {
    schema: {
      summary: 'Get a customer',
      description:
        "Explo's Customer API: the customer with this provided_id in the key's environment, token included; 404 when there is none (never creates).",
      tags: CUSTOMER_TAGS,
      body: documented(ProvidedIdBody, { examples: { get: { summary: "The reference's example", value: { provided_id: 'example_1' } } } }),
      response: {
        200: documented(CustomerResponse, {
          description: 'The customer.',
          examples: { found: { summary: 'Found', value: { success: 1, customer: EXAMPLE_CUSTOMER } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    handler: async (request) => ({
      success: 1 as const,
      customer: customerJson(await customers.get(request.principal, request.body.provided_id)),
    }),
  });
}
