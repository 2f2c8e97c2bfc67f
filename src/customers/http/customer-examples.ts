import { EXAMPLE_TOKEN } from '../../platform/http/route-docs.js';

/** The customer the Customer API's examples show, as this service answers it. */
export const EXAMPLE_CUSTOMER = {
  token: EXAMPLE_TOKEN,
  name: 'Example 1',
  provided_id: 'example_1',
  is_demo_group: false,
  emails: ['example@example.com'],
  group_tags: ['sales'],
  properties: { filterValue: 'value' },
  computed_properties: { filterValue: 'value' },
  access_group: 'Customer',
  parent_schema_datasource_mapping: { '40': '213', '134': '386' },
  computed_parent_schema_datasource_mapping: { '40': '213', '134': '386' },
  hierarchy_level: 'Customer',
  parent_provided_id: null,
};
