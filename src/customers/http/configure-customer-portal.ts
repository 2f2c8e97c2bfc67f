import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import { invalidRequest } from '../../kernel/errors.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { ConfigurePortalBody, CUSTOMER_TAGS } from './customer-schemas.js';

/** POST /api/configure_customer_portal/: answered, never silently accepted: this service has no customer portal. */
export function registerConfigureCustomerPortal(app: TypedApp): void {
  app.post('/api/configure_customer_portal/', {
    schema: {
      summary: 'Configure the customer portal (not served)',
      description:
        "Explo's Customer Portal signs customers' users in by email to a hosted dashboard. This service hosts no dashboard and signs no one in, so the call is always a 400 saying so (never a success that did nothing); a customer's emails are stored with POST /api/update_customer/.",
      tags: CUSTOMER_TAGS,
      body: documented(ConfigurePortalBody, {
        examples: {
          portal: {
            summary: "The reference's example",
            value: { dashboard_embed_id: 'Ab123CdefG', provided_id: 'test_id_1', emails: ['apple@explo.co', 'orange@explo.co'] },
          },
        },
      }),
      response: {
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS),
      },
    },
    handler: async () => {
      throw invalidRequest(
        "This service has no customer portal: it hosts no dashboard and signs no one in by email. Embed your dashboards with POST /api/generate_jwt/ (or POST /api/embed_sessions), and store a customer's emails with POST /api/update_customer/.",
      );
    },
  });
}
