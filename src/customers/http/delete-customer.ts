import type { CustomerService } from '../customer-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { CurrentTokenBody, CUSTOMER_TAGS, SuccessResponse } from './customer-schemas.js';

/** DELETE /api/delete_customer/: the customer holding current_token. */
export function registerDeleteCustomer(app: TypedApp, customers: CustomerService): void {
  app.delete('/api/delete_customer/', {
    schema: {
      summary: 'Delete a customer',
      description:
        "Explo's Customer API: deletes the customer of the key's environment holding current_token (404 when none does). Refused with 409 conflict while it has children, as the reference says: delete them or move them first. Its token stops working and its embed sessions end at once. Audited and evented as user_group.deleted.",
      tags: CUSTOMER_TAGS,
      body: documented(CurrentTokenBody, {
        examples: {
          delete: { summary: 'Delete by token', value: { current_token: 'ugt_EXAMPLE0not0a0real0token0000000000000000000000000' } },
        },
      }),
      response: {
        200: documented(SuccessResponse, { description: 'Deleted.', examples: { deleted: { summary: 'Deleted', value: { success: 1 } } } }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found', 'conflict'),
      },
    },
    handler: async (request) => {
      await customers.delete(request.principal, request.body.current_token, request);
      return { success: 1 as const };
    },
  });
}
