import type { DataSourceService } from '../data-source-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { CreateDataSourceBody, DataSourceResponse } from './data-source-schemas.js';
import { DATA_SOURCE_TAGS, EXAMPLE_CONNECTION, EXAMPLE_DATA_SOURCE } from './data-source-examples.js';
import { dataSourceJson } from './data-source-view.js';

/** POST /api/data_sources: a data source of the key's environment, under the id mappings name. */
export function registerCreateDataSource(app: TypedApp, dataSources: DataSourceService): void {
  app.post('/api/data_sources', {
    schema: {
      summary: 'Add a data source',
      description:
        'Adds a data source to the key\'s environment under the id you choose: a group\'s mapping value that equals it ("213", or the number 213) resolves to it. The password is sealed with the server secret and never returned. 409 when the id is taken. Read-write keys; audited; a data_source.created event (no secret in it).',
      tags: DATA_SOURCE_TAGS,
      body: documented(CreateDataSourceBody, {
        examples: {
          tenantDatabase: {
            summary: "A tenant's own database",
            value: {
              id: '213',
              name: 'Acme warehouse',
              kind: 'postgresql',
              connection: { ...EXAMPLE_CONNECTION, password: 'example-password' },
            },
          },
        },
      }),
      response: {
        201: documented(DataSourceResponse, {
          description: 'Added.',
          examples: { added: { summary: 'Added', value: { success: 1, data_source: EXAMPLE_DATA_SOURCE } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'conflict'),
      },
    },
    handler: async (request, reply) => {
      const created = await dataSources.create(request.principal, request.body, request);
      reply.code(201);
      return { success: 1 as const, data_source: dataSourceJson(created) };
    },
  });
}
