import type { DataSourceService } from '../data-source-service.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { DataSourceIdParams, DeleteDataSourceQuery, DeleteResponse } from './data-source-schemas.js';
import { DATA_SOURCE_TAGS } from './data-source-examples.js';

/** DELETE /api/data_sources/{id}: refused while a group maps to it, unless forced. */
export function registerDeleteDataSource(app: TypedApp, dataSources: DataSourceService): void {
  app.delete('/api/data_sources/:data_source_id', {
    schema: {
      summary: 'Remove a data source',
      description:
        "Removes the data source. 409, saying how many, while a group's own mapping names it; with force=true it is removed anyway and those mapping values resolve to nothing (a router answers unresolved_data_source for them). Routers close its pool within their refresh delay. Read-write keys; audited; a data_source.deleted event.",
      tags: DATA_SOURCE_TAGS,
      params: DataSourceIdParams,
      querystring: DeleteDataSourceQuery,
      response: {
        200: documented(DeleteResponse, { description: 'Removed.', examples: { removed: { summary: 'Removed', value: { success: 1 } } } }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found', 'conflict'),
      },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => {
      await dataSources.remove(request.principal, request.params.data_source_id, { force: request.query.force! }, request);
      return { success: 1 as const };
    },
  });
}
