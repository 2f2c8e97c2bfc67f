import { isDeepStrictEqual } from 'node:util';
import type { AuditContext, ChangeOrigin } from '../audit/audit.js';
import type { Environment } from '../kernel/environment.js';
import { conflict, forbidden, invalidRequest, notFound } from '../kernel/errors.js';
import { assertNfc } from '../kernel/nfc-ids.js';
import { keyKind, may, readRefusal, type Principal } from '../kernel/principal.js';
import type { TokenCipher } from '../secrets/token-cipher.js';
import type { ConnectionChecker, ConnectionCheckResult } from './connection-check.js';
import {
  DATA_SOURCE_KINDS,
  DATA_SOURCE_LIMITS,
  dataSourcePasswordSealContext,
  toDataSourceView,
  type DataSourceCredentials,
  type DataSourceKind,
  type DataSourceRecord,
  type DataSourceView,
} from './data-source.js';
import { dataSourceChecked, dataSourceCreated, dataSourceDeleted, dataSourceUpdated } from './data-source-consequences.js';
import type { DataSourceStore } from './data-source-store.js';
import { mergedConnection, type PostgresConnectionInput } from './postgres-connection.js';

export interface DataSourceInput {
  id: string;
  name: string;
  kind: DataSourceKind;
  connection: PostgresConnectionInput;
}

/** A partial update: what is absent stays as it is. */
export interface DataSourceUpdate {
  name?: string;
  kind?: DataSourceKind;
  connection?: PostgresConnectionInput;
}

/** One data source as reading it shows: the groups whose own mapping names it (the first few, and how many in all). */
export interface DataSourceDetail {
  dataSource: DataSourceView;
  mappedGroups: { providedIds: string[]; total: number };
}

export interface DataSourceServiceDeps {
  store: DataSourceStore;
  cipher: TokenCipher;
  checker: ConnectionChecker;
  now?: () => Date;
}

/** How many of the groups mapping to a data source its reading names. */
const MAPPED_GROUPS_SHOWN = 20;

/** Data sources of the calling key's environment: what mapping values name, and how to reach each. */
export class DataSourceService {
  private readonly store: DataSourceStore;
  private readonly now: () => Date;

  constructor(private readonly deps: DataSourceServiceDeps) {
    this.store = deps.store;
    this.now = deps.now ?? (() => new Date());
  }

  async create(principal: Principal, input: DataSourceInput, origin?: ChangeOrigin): Promise<DataSourceView> {
    assertWritable(principal);
    checkId(input.id);
    checkKind(input.kind);
    const connection = mergedConnection(null, input.connection);
    const at = this.now().toISOString();
    const password = input.connection.password ?? null;
    const record: DataSourceRecord = {
      environment: principal.environment,
      id: input.id,
      name: checkedName(input.name),
      kind: input.kind,
      connection,
      passwordCiphertext: password === null ? null : this.seal(principal.environment, input.id, password),
      version: 1,
      createdAt: at,
      updatedAt: at,
    };
    const fields = ['name', 'kind', ...connectionFields(input.connection)];
    const inserted = await this.store.insertDataSource(
      record,
      dataSourceCreated(principal.environment, input.id, at, auditOf(principal, fields, origin)),
      DATA_SOURCE_LIMITS.perEnvironment,
    );
    if (inserted === 'exists')
      throw conflict(
        `A data source with "id" ${JSON.stringify(input.id)} exists in the ${principal.environment} environment already; update it instead.`,
      );
    if (inserted === 'full')
      throw conflict(
        `The ${principal.environment} environment has ${DATA_SOURCE_LIMITS.perEnvironment} data sources, the most it may have; remove one first.`,
      );
    return toDataSourceView(inserted);
  }

  async list(
    principal: Principal,
    page: { after?: string; limit: number },
  ): Promise<{ dataSources: DataSourceView[]; nextCursor: string | null }> {
    assertMayRead(principal);
    const records = await this.store.listDataSources(principal.environment, page.after ?? null, page.limit);
    const last = records.at(-1);
    return { dataSources: records.map(toDataSourceView), nextCursor: records.length === page.limit && last ? last.id : null };
  }

  async get(principal: Principal, id: string): Promise<DataSourceDetail> {
    assertMayRead(principal);
    const record = await this.found(principal.environment, id);
    const mappedGroups = await this.store.groupsMappingTo(principal.environment, id, MAPPED_GROUPS_SHOWN);
    return { dataSource: toDataSourceView(record), mappedGroups };
  }

  /** The groups whose own mapping names the data source (at most `limit`, in id order), and how many in all. */
  async mappedGroups(principal: Principal, id: string, limit: number): Promise<{ providedIds: string[]; total: number }> {
    assertMayRead(principal);
    await this.found(principal.environment, id);
    return this.store.groupsMappingTo(principal.environment, id, limit);
  }

  /** The connection with its password: for the dashboard layer's router, which holds a `dashboard` key. */
  async credentials(principal: Principal, id: string): Promise<DataSourceCredentials> {
    if (!may(principal, 'data-source-secrets'))
      throw forbidden(
        `This API key is ${keyKind(principal.access)}; a data source's password is read only with a dashboard key (ugs keys create --access dashboard), what the dashboard layer holds.`,
      );
    const record = await this.found(principal.environment, id);
    return {
      environment: record.environment,
      id: record.id,
      kind: record.kind,
      version: record.version,
      connection: { ...record.connection, password: this.openPassword(record) },
    };
  }

  async update(principal: Principal, id: string, update: DataSourceUpdate, origin?: ChangeOrigin): Promise<DataSourceView> {
    assertWritable(principal);
    const current = await this.found(principal.environment, id);
    if (update.kind !== undefined && update.kind !== current.kind)
      throw invalidRequest(`A data source's "kind" cannot change (${id} is ${current.kind}); create another data source instead.`);
    const name = update.name === undefined ? current.name : checkedName(update.name);
    const connection = update.connection === undefined ? current.connection : mergedConnection(current.connection, update.connection);
    const password = update.connection?.password;
    const passwordChanged = password !== undefined && password !== this.openPassword(current);
    const fields = [
      ...(name === current.name ? [] : ['name']),
      ...(['host', 'port', 'database', 'user'] as const)
        .filter((f) => connection[f] !== current.connection[f])
        .map((f) => `connection.${f}`),
      ...(isDeepStrictEqual(connection.ssl, current.connection.ssl) ? [] : ['connection.ssl']),
      ...(passwordChanged ? ['connection.password'] : []),
    ];
    if (fields.length === 0) return toDataSourceView(current);
    const at = this.now().toISOString();
    const updated = await this.store.updateDataSource(
      principal.environment,
      id,
      current.version,
      {
        name,
        connection,
        passwordCiphertext: !passwordChanged
          ? current.passwordCiphertext
          : password === null
            ? null
            : this.seal(principal.environment, id, password),
        updatedAt: at,
      },
      dataSourceUpdated(principal.environment, id, at, auditOf(principal, fields, origin)),
    );
    if (!updated) throw conflict(`Data source ${JSON.stringify(id)} was changed or removed meanwhile; read it again and retry.`);
    return toDataSourceView(updated);
  }

  /** Removes it; refused while a group's own mapping names it, unless `force` (those values then resolve to nothing). */
  async remove(principal: Principal, id: string, options: { force: boolean }, origin?: ChangeOrigin): Promise<void> {
    assertWritable(principal);
    const at = this.now().toISOString();
    const deletion = await this.store.deleteDataSource(
      principal.environment,
      id,
      options.force,
      dataSourceDeleted(principal.environment, id, at, auditOf(principal, [], origin)),
    );
    if (deletion === null) throw unknownDataSource(principal.environment, id);
    if (!deletion.deleted) {
      const groups = deletion.mappedGroups === 1 ? '1 group maps' : `${deletion.mappedGroups} groups map`;
      throw conflict(
        `${groups} a schema to data source ${JSON.stringify(id)}; change their mappings first, or delete with force=true and those mapping values will resolve to no data source.`,
      );
    }
  }

  /** Connects once with a short timeout and says what it found, as categories; audited (who probed what, and the outcome). */
  async check(principal: Principal, id: string, origin?: ChangeOrigin): Promise<ConnectionCheckResult> {
    assertWritable(principal);
    const record = await this.found(principal.environment, id);
    const result = await this.deps.checker.check({ ...record.connection, password: this.openPassword(record) });
    await this.store.appendRecord(
      dataSourceChecked(principal.environment, id, this.now().toISOString(), auditOf(principal, [result.failure ?? 'connected'], origin)),
    );
    return result;
  }

  /** The data sources of the environment that `ids` name (those that exist), by id: what resolving a mapping reads. */
  async existing(environment: Environment, ids: readonly string[]): Promise<Map<string, DataSourceView>> {
    if (ids.length === 0) return new Map();
    const records = await this.store.findDataSources(environment, [...new Set(ids)]);
    return new Map(records.map((record) => [record.id, toDataSourceView(record)]));
  }

  private async found(environment: Environment, id: string): Promise<DataSourceRecord> {
    const record = await this.store.findDataSource(environment, id);
    if (!record) throw unknownDataSource(environment, id);
    return record;
  }

  private seal(environment: Environment, id: string, password: string): Buffer {
    return this.deps.cipher.seal(password, dataSourcePasswordSealContext(environment, id));
  }

  private openPassword(record: DataSourceRecord): string | null {
    return record.passwordCiphertext === null
      ? null
      : this.deps.cipher.open(record.passwordCiphertext, dataSourcePasswordSealContext(record.environment, record.id));
  }
}

function unknownDataSource(environment: Environment, id: string) {
  return notFound(`No data source ${JSON.stringify(id)} exists in the ${environment} environment (this API key's).`);
}

function checkId(id: string): void {
  // The id is what mapping values name and what a URL path carries: printable, and one form of it only.
  if (id.length === 0 || id.length > DATA_SOURCE_LIMITS.idMaxLength || id.trim() !== id || /\p{Cc}/u.test(id))
    throw invalidRequest(
      `"id" is 1 to ${DATA_SOURCE_LIMITS.idMaxLength} characters without control characters or surrounding spaces: the value mappings name.`,
    );
  // A URL path resolves "." and ".." away: GET /api/data_sources/../credentials could never name such a data source.
  if (id === '.' || id === '..') throw invalidRequest('"id" cannot be "." or "..": a URL path cannot name them.');
  assertNfc(id, 'id', 'data source ids', 'data sources');
}

function checkKind(kind: string): void {
  if (!(DATA_SOURCE_KINDS as readonly string[]).includes(kind)) throw invalidRequest(`"kind" is one of ${DATA_SOURCE_KINDS.join(', ')}.`);
}

function checkedName(name: string): string {
  if (name.trim() === '' || name.length > DATA_SOURCE_LIMITS.nameMaxLength)
    throw invalidRequest(`"name" is 1 to ${DATA_SOURCE_LIMITS.nameMaxLength} characters, not only spaces.`);
  return name;
}

/** The connection fields a request set, by name (the password's name too, never its value). */
function connectionFields(input: PostgresConnectionInput): string[] {
  return Object.keys(input).map((field) => `connection.${field}`);
}

function assertMayRead(principal: Principal): void {
  if (!may(principal, 'read')) throw forbidden(readRefusal(principal, 'data sources'));
}

function assertWritable(principal: Principal): void {
  assertMayRead(principal);
  if (!may(principal, 'write'))
    throw forbidden('This API key is read-only; adding, changing, checking or removing data sources needs a read-write key.');
}

function auditOf(principal: Principal, fields: string[], origin: ChangeOrigin | undefined): AuditContext {
  return { keyId: principal.keyId, fields, clientAddress: origin?.ip ?? null };
}
