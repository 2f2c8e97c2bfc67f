import type { DataSourceService } from '../data-source-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { DataSourceIdParams, DataSourceResponse, UpdateDataSourceBody } from './data-source-schemas.js';
import { DATA_SOURCE_TAGS, EXAMPLE_DATA_SOURCE } from './data-source-examples.js';
import { dataSourceJson } from './data-source-view.js';

/** PUT /api/data_sources/{id}: a partial update, a new password included. */
export function registerUpdateDataSource(app: TypedApp, dataSources: DataSourceService): void {
  app.put('/api/data_sources/:data_source_id', {
    schema: {
      summary: 'Change a data source',
      description:
        'Changes the fields given and keeps the rest: the name, any connection field (`connection.password` sets a new password, null removes it; `connection.ssl` replaces the TLS settings given). The kind cannot change. A change counts one more `version`: routers close the old pool and connect with the new settings within their refresh delay. A request that changes nothing writes nothing. Read-write keys; audited; a data_source.updated event naming the changed fields (never their values).',
      tags: DATA_SOURCE_TAGS,
      params: DataSourceIdParams,
      body: documented(UpdateDataSourceBody, {
        examples: {
          password: { summary: 'A new password', value: { connection: { password: 'new-example-password' } } },
          host: { summary: 'Moved', value: { connection: { host: 'db2.internal.example' } } },
        },
      }),
      response: {
        200: documented(DataSourceResponse, {
          description: 'The data source as it is now.',
          examples: { changed: { summary: 'Changed', value: { success: 1, data_source: { ...EXAMPLE_DATA_SOURCE, version: 2 } } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found', 'conflict'),
      },
    },
    handler: async (request) => ({
      success: 1 as const,
      data_source: dataSourceJson(await dataSources.update(request.principal, request.params.data_source_id, request.body, request)),
    }),
  });
}
