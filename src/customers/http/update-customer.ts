import type { CustomerService } from '../customer-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { CustomerResponse, CUSTOMER_TAGS, UpdateCustomerBody } from './customer-schemas.js';
import { customerJson } from './customer-view.js';
import { EXAMPLE_CUSTOMER } from './customer-examples.js';

/** POST /api/update_customer/: replaces the fields given. */
export function registerUpdateCustomer(app: TypedApp, customers: CustomerService): void {
  app.post('/api/update_customer/', {
    schema: {
      summary: 'Update a customer',
      description:
        "Explo's Customer API: replaces the fields given of the customer with this provided_id (404 when none); the token stays. emails and group_tags replace the lists ([] empties them); mapping and properties replace the customer's own (null clears them); parent_provided_id moves it (null detaches it) and hierarchy_level_name changes its level, each keeping every parent at a higher level than its children; new_provided_id renames it (409 when taken), ending its embed sessions. Audited and evented as user_group.updated (or user_group.moved).",
      tags: CUSTOMER_TAGS,
      body: documented(UpdateCustomerBody, {
        examples: {
          update: {
            summary: "The reference's example",
            value: {
              provided_id: 'example_1',
              properties: { filterValue: 'new_value' },
              emails: ['new_email@example.com'],
              hierarchy_level_name: 'Customer',
            },
          },
        },
      }),
      response: {
        200: documented(CustomerResponse, {
          description: 'The customer after the update.',
          examples: { updated: { summary: 'Updated', value: { success: 1, customer: EXAMPLE_CUSTOMER } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found', 'conflict'),
      },
    },
    handler: async (request) => {
      const b = request.body;
      const customer = await customers.update(
        request.principal,
        {
          providedId: b.provided_id,
          ...(b.new_provided_id === undefined || b.new_provided_id === null ? {} : { newProvidedId: b.new_provided_id }),
          ...(b.name === undefined || b.name === null ? {} : { name: b.name }),
          ...(b.mapping === undefined ? {} : { mapping: b.mapping ?? {} }),
          ...(b.properties === undefined ? {} : { properties: b.properties }),
          ...(b.is_demo_group === undefined || b.is_demo_group === null ? {} : { isDemoGroup: b.is_demo_group }),
          ...(b.emails === undefined ? {} : { emails: b.emails ?? [] }),
          ...(b.group_tags === undefined ? {} : { groupTags: b.group_tags ?? [] }),
          ...(b.hierarchy_level_name === undefined || b.hierarchy_level_name === null
            ? {}
            : { hierarchyLevelName: b.hierarchy_level_name }),
          ...(b.parent_provided_id === undefined ? {} : { parentProvidedId: b.parent_provided_id }),
        },
        request,
      );
      return { success: 1 as const, customer: customerJson(customer) };
    },
  });
}
