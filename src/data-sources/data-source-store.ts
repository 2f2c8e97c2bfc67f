import type { Environment } from '../kernel/environment.js';
import type { WriteConsequences } from '../consequences/write-consequences.js';
import type { DataSourceRecord } from './data-source.js';

/** What a change sets: the name, the connection (without the password), the password sealed (null: none). */
export interface DataSourceChange {
  name: string;
  connection: DataSourceRecord['connection'];
  passwordCiphertext: Buffer | null;
  updatedAt: string;
}

/** How a delete went: gone, absent, or refused because groups still map to it (their number). */
export type DataSourceDeletion = { deleted: true } | { deleted: false; mappedGroups: number } | null;

/**
 * The storage DataSourceService needs: a port, implemented in src/store and held to it by the store
 * conformance suite on both databases. Each change appends the consequences it is handed (audit record and
 * event, data-source-consequences.ts) in its own transaction, and only when it changed something.
 */
export interface DataSourceStore {
  /** Adds it unless its id is taken in its environment ('exists') or the environment has `maxPerEnvironment` ('full'). */
  insertDataSource(
    record: DataSourceRecord,
    consequences: WriteConsequences,
    maxPerEnvironment: number,
  ): Promise<DataSourceRecord | 'exists' | 'full'>;
  /** The environment's data sources in id order (bytewise), those after `afterId` when given. */
  listDataSources(environment: Environment, afterId: string | null, limit: number): Promise<DataSourceRecord[]>;
  findDataSource(environment: Environment, id: string): Promise<DataSourceRecord | null>;
  /** Those of `ids` that exist in the environment: what a mapping's values resolve to. */
  findDataSources(environment: Environment, ids: readonly string[]): Promise<DataSourceRecord[]>;
  /** Applies the change, one more version, if the row is still at `expectedVersion`; null otherwise (changed meanwhile, or gone). */
  updateDataSource(
    environment: Environment,
    id: string,
    expectedVersion: number,
    change: DataSourceChange,
    consequences: WriteConsequences,
  ): Promise<DataSourceRecord | null>;
  /**
   * Deletes it in one transaction with the count of the environment's groups whose own mapping names it: refused
   * (with that count) while any does unless `force`. Null when it does not exist.
   */
  deleteDataSource(environment: Environment, id: string, force: boolean, consequences: WriteConsequences): Promise<DataSourceDeletion>;
  /** The environment's groups (provided ids, in order, at most `limit`) whose own mapping names the data source, and how many in all. */
  groupsMappingTo(environment: Environment, id: string, limit: number): Promise<{ providedIds: string[]; total: number }>;
  /** Appends what a write-less action leaves (a connection check's audit record). */
  appendRecord(consequences: WriteConsequences): Promise<void>;
}

/** Every data source's sealed password, for `ugs secret rotate`. */
export interface DataSourceSecretResealStore {
  listDataSourcePasswords(): Promise<{ environment: Environment; id: string; passwordCiphertext: Buffer }[]>;
  /** Swaps one sealed password if the row still holds `expected`; false otherwise. */
  replaceDataSourcePasswordCiphertext(environment: Environment, id: string, expected: Buffer, next: Buffer): Promise<boolean>;
}
