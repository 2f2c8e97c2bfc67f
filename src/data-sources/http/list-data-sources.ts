import type { DataSourceService } from '../data-source-service.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { DataSourcesResponse, ListDataSourcesQuery } from './data-source-schemas.js';
import { DATA_SOURCE_TAGS, EXAMPLE_DATA_SOURCE } from './data-source-examples.js';
import { dataSourceJson } from './data-source-view.js';

/** GET /api/data_sources: one page of the environment's data sources, in id order. */
export function registerListDataSources(app: TypedApp, dataSources: DataSourceService): void {
  app.get('/api/data_sources', {
    schema: {
      summary: 'List data sources',
      description:
        "The key's environment's data sources in id order (byte order), without passwords. Pass next_cursor back as `after` for the next page. Read-write and read-only keys.",
      tags: DATA_SOURCE_TAGS,
      querystring: ListDataSourcesQuery,
      response: {
        200: documented(DataSourcesResponse, {
          description: 'One page.',
          examples: { page: { summary: 'One data source', value: { success: 1, data_sources: [EXAMPLE_DATA_SOURCE], next_cursor: null } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden'),
      },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => {
      const { after, limit } = request.query;
      const page = await dataSources.list(request.principal, { after, limit: limit! });
      return { success: 1 as const, data_sources: page.dataSources.map(dataSourceJson), next_cursor: page.nextCursor };
    },
  });
}
