import type { DataSourceService } from '../data-source-service.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { DataSourceDetailResponse, DataSourceIdParams } from './data-source-schemas.js';
import { DATA_SOURCE_TAGS, EXAMPLE_DATA_SOURCE } from './data-source-examples.js';
import { dataSourceDetailJson } from './data-source-view.js';

/** GET /api/data_sources/{id}: one data source, without its password, with the groups that map to it. */
export function registerGetDataSource(app: TypedApp, dataSources: DataSourceService): void {
  app.get('/api/data_sources/:data_source_id', {
    schema: {
      summary: 'Read a data source',
      description:
        "The data source with this id in the key's environment, without its password (`password_set` says whether one is stored), with the groups whose own mapping names it. Read-write and read-only keys.",
      tags: DATA_SOURCE_TAGS,
      params: DataSourceIdParams,
      response: {
        200: documented(DataSourceDetailResponse, {
          description: 'The data source.',
          examples: {
            found: {
              summary: 'Mapped by two groups',
              value: {
                success: 1,
                data_source: { ...EXAMPLE_DATA_SOURCE, mapped_groups: { total: 2, user_group_ids: ['acme', 'acme-eu'] } },
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
      data_source: dataSourceDetailJson(await dataSources.get(request.principal, request.params.data_source_id)),
    }),
  });
}
