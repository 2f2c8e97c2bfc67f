import type { DataSourceService } from '../data-source-service.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { CredentialsResponse, DataSourceIdParams } from './data-source-schemas.js';
import { DATA_SOURCE_TAGS, EXAMPLE_CONNECTION } from './data-source-examples.js';
import { credentialsJson } from './data-source-view.js';

/** GET /api/data_sources/{id}/credentials: the connection with its password, for the dashboard layer's router. */
export function registerGetDataSourceCredentials(app: TypedApp, dataSources: DataSourceService): void {
  app.get('/api/data_sources/:data_source_id/credentials', {
    schema: {
      summary: "Read a data source's credentials",
      description:
        'The connection with its password, opened from its seal: what the data router (createDataRouter in user-group-service/embed) opens its pool with. Dashboard keys only (ugs keys create --access dashboard); every other key is refused. `version` changes with every change of the data source.',
      tags: DATA_SOURCE_TAGS,
      params: DataSourceIdParams,
      response: {
        200: documented(CredentialsResponse, {
          description: 'The connection, password included.',
          examples: {
            credentials: {
              summary: 'With its password',
              value: {
                success: 1,
                data_source: {
                  id: '213',
                  api_environment_tag: 'Customer',
                  kind: 'postgresql',
                  version: 1,
                  connection: { ...EXAMPLE_CONNECTION, password: 'example-password' },
                },
              },
            },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => ({
      success: 1 as const,
      data_source: credentialsJson(await dataSources.credentials(request.principal, request.params.data_source_id)),
    }),
  });
}
