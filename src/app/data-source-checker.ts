import type { ConnectionChecker } from '../data-sources/connection-check.js';
import { DataSourceAddressPolicy } from '../data-sources/check/data-source-address-policy.js';
import { PostgresConnectionChecker } from '../data-sources/check/postgres-connection-checker.js';

/** The connection check a data source gets: PostgreSQL's, only where the address policy allows (never this process's own ports). */
export function connectionChecker(options: { ownPorts: () => readonly number[] }): ConnectionChecker {
  return new PostgresConnectionChecker({ addressPolicy: new DataSourceAddressPolicy({ ownPorts: options.ownPorts }) });
}
