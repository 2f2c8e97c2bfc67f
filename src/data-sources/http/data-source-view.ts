import type { ConnectionCheckResult } from '../connection-check.js';
import type { DataSourceCredentials, DataSourceView } from '../data-source.js';
import type { DataSourceDetail } from '../data-source-service.js';

/** A data source on the wire: never its password, only whether one is set. */
export function dataSourceJson(view: DataSourceView) {
  return {
    id: view.id,
    name: view.name,
    kind: view.kind,
    connection: view.connection,
    password_set: view.passwordSet,
    version: view.version,
    created_at: view.createdAt,
    updated_at: view.updatedAt,
  };
}

export function dataSourceDetailJson(detail: DataSourceDetail) {
  return {
    ...dataSourceJson(detail.dataSource),
    mapped_groups: { total: detail.mappedGroups.total, user_group_ids: detail.mappedGroups.providedIds },
  };
}

export function credentialsJson(credentials: DataSourceCredentials) {
  return {
    id: credentials.id,
    api_environment_tag: credentials.environment,
    kind: credentials.kind,
    version: credentials.version,
    connection: credentials.connection,
  };
}

export function checkJson(result: ConnectionCheckResult) {
  return {
    reachable: result.reachable,
    authenticated: result.authenticated,
    server_version: result.serverVersion,
    superuser: result.superuser,
    bypass_rls: result.bypassRls,
    tls: result.tls,
    failure: result.failure,
    duration_ms: Math.round(result.durationMs),
  };
}
