import type { Environment } from '../../kernel/environment.js';
import type { WriteConsequences } from '../../consequences/write-consequences.js';
import type { DataSourceKind, DataSourceRecord } from '../../data-sources/data-source.js';
import type {
  DataSourceChange,
  DataSourceDeletion,
  DataSourceSecretResealStore,
  DataSourceStore,
} from '../../data-sources/data-source-store.js';
import { append, run, type SqlDatabase } from './sql-database.js';
import { BYTEWISE, statement, type Dialect } from './sql-statement.js';

interface DataSourceRow {
  environment: string;
  id: string;
  name: string;
  kind: string;
  connection: string;
  password_ciphertext: Buffer | null;
  version: number | string;
  created_at: string;
  updated_at: string;
}

function toDataSource(row: DataSourceRow): DataSourceRecord {
  return {
    environment: row.environment as Environment,
    id: row.id,
    name: row.name,
    kind: row.kind as DataSourceKind,
    connection: JSON.parse(row.connection),
    passwordCiphertext: row.password_ciphertext,
    version: Number(row.version),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A group's own mapping values as text, one row each (`g` is the group): a number 213 reads as '213', as String(213) does. */
const MAPPING_VALUES: Readonly<Record<Dialect, string>> = {
  sqlite: 'json_each(g.mapping) m',
  postgres: 'json_each_text(g.mapping::json) m',
};
const MAPPING_VALUE: Readonly<Record<Dialect, string>> = { sqlite: 'CAST(m.value AS TEXT)', postgres: 'm.value' };
/** A JSON array parameter's strings, one row each (`value`). */
const JSON_ARRAY: Readonly<Record<Dialect, string>> = { sqlite: 'json_each(@ids)', postgres: 'json_array_elements_text(@ids::json)' };

/** Two replicas creating at once cannot both pass the per-environment cap; SQLite writes one at a time. */
const CAP_LOCK = statement('lockDataSourceCap', { sqlite: '', postgres: 'SELECT pg_advisory_xact_lock(7365039)' });
const COUNT = statement<{ n: number | string }>(
  'countDataSources',
  'SELECT count(*) AS n FROM data_sources WHERE environment = @environment',
);
const INSERT = statement<DataSourceRow>(
  'insertDataSource',
  `INSERT INTO data_sources (environment, id, name, kind, connection, password_ciphertext, version, created_at, updated_at)
   VALUES (@environment, @id, @name, @kind, @connection, @passwordCiphertext, @version, @createdAt, @updatedAt)
   ON CONFLICT (environment, id) DO NOTHING
   RETURNING *`,
);
const LIST = statement<DataSourceRow>(
  'listDataSources',
  (d) =>
    `SELECT * FROM data_sources WHERE environment = @environment AND id${BYTEWISE[d]} > @afterId ORDER BY id${BYTEWISE[d]} LIMIT @limit`,
);
const LIST_FIRST = statement<DataSourceRow>(
  'listFirstDataSources',
  (d) => `SELECT * FROM data_sources WHERE environment = @environment ORDER BY id${BYTEWISE[d]} LIMIT @limit`,
);
const FIND = statement<DataSourceRow>('findDataSource', 'SELECT * FROM data_sources WHERE environment = @environment AND id = @id');
const FIND_MANY = statement<DataSourceRow>(
  'findDataSources',
  (d) => `SELECT * FROM data_sources WHERE environment = @environment AND id IN (SELECT value FROM ${JSON_ARRAY[d]})`,
);
const UPDATE = statement<DataSourceRow>(
  'updateDataSource',
  `UPDATE data_sources SET name = @name, connection = @connection, password_ciphertext = @passwordCiphertext,
          version = version + 1, updated_at = @updatedAt
   WHERE environment = @environment AND id = @id AND version = @expectedVersion
   RETURNING *`,
);
const COUNT_MAPPED = statement<{ n: number | string }>(
  'countGroupsMappingToDataSource',
  (d) => `SELECT count(DISTINCT g.team_id) AS n FROM user_groups g, ${MAPPING_VALUES[d]}
          WHERE g.environment = @environment AND g.mapping IS NOT NULL AND ${MAPPING_VALUE[d]} = @id`,
);
const MAPPED = statement<{ provided_id: string }>(
  'listGroupsMappingToDataSource',
  (d) => `SELECT DISTINCT g.provided_id FROM user_groups g, ${MAPPING_VALUES[d]}
          WHERE g.environment = @environment AND g.mapping IS NOT NULL AND ${MAPPING_VALUE[d]} = @id
          ORDER BY g.provided_id${BYTEWISE[d]} LIMIT @limit`,
);
const DELETE = statement<{ id: string }>(
  'deleteDataSource',
  'DELETE FROM data_sources WHERE environment = @environment AND id = @id RETURNING id',
);
const PASSWORDS = statement<{ environment: string; id: string; password_ciphertext: Buffer }>(
  'listDataSourcePasswords',
  'SELECT environment, id, password_ciphertext FROM data_sources WHERE password_ciphertext IS NOT NULL ORDER BY environment, id',
);
const REPLACE_PASSWORD = statement<{ id: string }>(
  'replaceDataSourcePassword',
  `UPDATE data_sources SET password_ciphertext = @next
   WHERE environment = @environment AND id = @id AND password_ciphertext = @expected RETURNING id`,
);

/** Data sources, written once for both databases: each change and its audit record and event in one transaction. */
export class SqlDataSources implements DataSourceStore, DataSourceSecretResealStore {
  constructor(private readonly db: SqlDatabase) {}

  insertDataSource(
    record: DataSourceRecord,
    consequences: WriteConsequences,
    maxPerEnvironment: number,
  ): Promise<DataSourceRecord | 'exists' | 'full'> {
    const parameters = { ...record, connection: JSON.stringify(record.connection) };
    return this.db.transaction(function* () {
      yield* run(CAP_LOCK);
      if ((yield* run(FIND, parameters)).length > 0) return 'exists' as const;
      const [count] = yield* run(COUNT, parameters);
      if (Number(count?.n ?? 0) >= maxPerEnvironment) return 'full' as const;
      const [row] = yield* run(INSERT, parameters);
      if (!row) return 'exists' as const;
      yield* append({ consequences });
      return toDataSource(row);
    });
  }

  async listDataSources(environment: Environment, afterId: string | null, limit: number): Promise<DataSourceRecord[]> {
    const rows =
      afterId === null ? await this.db.all(LIST_FIRST, { environment, limit }) : await this.db.all(LIST, { environment, afterId, limit });
    return rows.map(toDataSource);
  }

  async findDataSource(environment: Environment, id: string): Promise<DataSourceRecord | null> {
    const row = await this.db.first(FIND, { environment, id });
    return row ? toDataSource(row) : null;
  }

  async findDataSources(environment: Environment, ids: readonly string[]): Promise<DataSourceRecord[]> {
    if (ids.length === 0) return [];
    return (await this.db.all(FIND_MANY, { environment, ids: JSON.stringify(ids) })).map(toDataSource);
  }

  async updateDataSource(
    environment: Environment,
    id: string,
    expectedVersion: number,
    change: DataSourceChange,
    consequences: WriteConsequences,
  ): Promise<DataSourceRecord | null> {
    const parameters = { environment, id, expectedVersion, ...change, connection: JSON.stringify(change.connection) };
    const [row] = await this.db.write(UPDATE, parameters, { consequences });
    return row ? toDataSource(row) : null;
  }

  deleteDataSource(environment: Environment, id: string, force: boolean, consequences: WriteConsequences): Promise<DataSourceDeletion> {
    return this.db.transaction(function* () {
      if ((yield* run(FIND, { environment, id })).length === 0) return null;
      if (!force) {
        const [count] = yield* run(COUNT_MAPPED, { environment, id });
        const mappedGroups = Number(count?.n ?? 0);
        if (mappedGroups > 0) return { deleted: false as const, mappedGroups };
      }
      if ((yield* run(DELETE, { environment, id })).length === 0) return null;
      yield* append({ consequences });
      return { deleted: true as const };
    });
  }

  async groupsMappingTo(environment: Environment, id: string, limit: number): Promise<{ providedIds: string[]; total: number }> {
    const [count] = await this.db.all(COUNT_MAPPED, { environment, id });
    const total = Number(count?.n ?? 0);
    if (total === 0) return { providedIds: [], total };
    return { providedIds: (await this.db.all(MAPPED, { environment, id, limit })).map((row) => row.provided_id), total };
  }

  appendRecord(consequences: WriteConsequences): Promise<void> {
    return this.db.transaction(function* () {
      yield* append({ consequences });
    });
  }

  async listDataSourcePasswords(): Promise<{ environment: Environment; id: string; passwordCiphertext: Buffer }[]> {
    return (await this.db.all(PASSWORDS)).map((row) => ({
      environment: row.environment as Environment,
      id: row.id,
      passwordCiphertext: row.password_ciphertext,
    }));
  }

  async replaceDataSourcePasswordCiphertext(environment: Environment, id: string, expected: Buffer, next: Buffer): Promise<boolean> {
    return (await this.db.write(REPLACE_PASSWORD, { environment, id, expected, next })).length > 0;
  }
}
