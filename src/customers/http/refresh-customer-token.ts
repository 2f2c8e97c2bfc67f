import type { CustomerService } from '../customer-service.js';
import {
  ANY_REQUEST_ERRORS,
  API_KEY_ERRORS,
  BODY_ERRORS,
  documented,
  errorAnswers,
  EXAMPLE_NEW_TOKEN,
} from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { CurrentTokenBody, CustomerResponse, CUSTOMER_TAGS } from './customer-schemas.js';
import { customerJson } from './customer-view.js';
import { EXAMPLE_CUSTOMER } from './customer-examples.js';

/** POST /api/refresh_customer_token/: rotates the token. */
export function registerRefreshCustomerToken(app: TypedApp, customers: CustomerService): void {
  app.post('/api/refresh_customer_token/', {
    schema: {
      summary: "Refresh a customer's token",
      description:
        "Explo's Customer API: a new token for the customer holding current_token (404 when none does); the old token stops working at once and every embed session minted under it ends, as a rotation through POST /api/user does. Audited and evented as user_group.token_rotated.",
      tags: CUSTOMER_TAGS,
      body: documented(CurrentTokenBody, {
        examples: { refresh: { summary: 'Rotate', value: { current_token: 'ugt_EXAMPLE0not0a0real0token0000000000000000000000000' } } },
      }),
      response: {
        200: documented(CustomerResponse, {
          description: 'The customer with its new token.',
          examples: {
            refreshed: { summary: 'Refreshed', value: { success: 1, customer: { ...EXAMPLE_CUSTOMER, token: EXAMPLE_NEW_TOKEN } } },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    handler: async (request) => ({
      success: 1 as const,
      customer: customerJson(await customers.refreshToken(request.principal, request.body.current_token, request)),
    }),
  });
}
