import type { CustomerService } from '../customer-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { CreateCustomerBody, CreateCustomerResponse, CUSTOMER_TAGS } from './customer-schemas.js';
import { customerJson } from './customer-view.js';
import { EXAMPLE_CUSTOMER } from './customer-examples.js';

/** POST /api/create_customer/: the Customer API's get-or-create. */
export function registerCreateCustomer(app: TypedApp, customers: CustomerService): void {
  app.post('/api/create_customer/', {
    schema: {
      summary: 'Get or create a customer',
      description:
        "Explo's Customer API: returns the customer (user group) with this provided_id in the key's environment, creating it when there is none (name required then; new_customer says which). An existing customer is answered as it is: the other fields count only for a create. group_tags must name existing tags; hierarchy_level_name an existing level (default: the top level, or the level below the parent's); a parent must be at a higher level. Audited and evented as user_group.created.",
      tags: CUSTOMER_TAGS,
      body: documented(CreateCustomerBody, {
        examples: {
          create: {
            summary: "The reference's example",
            value: {
              provided_id: 'example_1',
              name: 'Example 1',
              mapping: { '40': '213', '134': '386' },
              properties: { filterValue: 'value' },
              emails: ['example@example.com'],
              hierarchy_level_name: 'Customer',
            },
          },
        },
      }),
      response: {
        200: documented(CreateCustomerResponse, {
          description: 'The customer, created by this call or already there.',
          examples: { created: { summary: 'Created', value: { success: 1, new_customer: true, customer: EXAMPLE_CUSTOMER } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'conflict'),
      },
    },
    handler: async (request) => {
      const b = request.body;
      const { customer, created } = await customers.getOrCreate(
        request.principal,
        {
          providedId: b.provided_id,
          name: b.name,
          mapping: b.mapping,
          properties: b.properties,
          isDemoGroup: b.is_demo_group,
          emails: b.emails,
          groupTags: b.group_tags,
          hierarchyLevelName: b.hierarchy_level_name,
          parentProvidedId: b.parent_provided_id,
        },
        request,
      );
      return { success: 1 as const, new_customer: created, customer: customerJson(customer) };
    },
  });
}
