import type { Environment } from '../kernel/environment.js';

/** The kinds of database a data source may be. Each kind names its connection's shape; PostgreSQL first. */
export const DATA_SOURCE_KINDS = ['postgresql'] as const;
export type DataSourceKind = (typeof DATA_SOURCE_KINDS)[number];

/**
 * How a PostgreSQL connection uses TLS, as libpq names the modes: `disable` (plain), `require` (encrypted, the
 * server not verified), `verify-ca` (the server's certificate chains to `ca`), `verify-full` (and names `host`).
 */
export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

export interface DataSourceSsl {
  mode: SslMode;
  /** PEM certificates the server's chain must reach (verify-ca, verify-full); the system's roots when absent. */
  ca?: string;
}

/** Where a PostgreSQL data source is and who connects to it: everything but the password, which is sealed apart. */
export interface PostgresConnection {
  host: string;
  port: number;
  database: string;
  user: string;
  ssl: DataSourceSsl;
}

/** A data source as stored. The password only sealed (`dataSourcePasswordSealContext`), never in plaintext. */
export interface DataSourceRecord {
  environment: Environment;
  /** Caller-supplied: what mapping values name. */
  id: string;
  name: string;
  kind: DataSourceKind;
  connection: PostgresConnection;
  passwordCiphertext: Buffer | null;
  /** 1 at creation, one more at each change: what a router compares to know its pool is stale. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** What callers see of a data source: never its password, only whether one is set. */
export interface DataSourceView {
  id: string;
  name: string;
  kind: DataSourceKind;
  connection: PostgresConnection;
  passwordSet: boolean;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** What a `dashboard` key reads: the connection with its password, to open a pool with. */
export interface DataSourceCredentials {
  environment: Environment;
  id: string;
  kind: DataSourceKind;
  version: number;
  connection: PostgresConnection & { password: string | null };
}

/** Limits the wire schema enforces; kept here so the domain and docs agree on them. */
export const DATA_SOURCE_LIMITS = {
  idMaxLength: 255,
  nameMaxLength: 255,
  hostMaxLength: 253,
  databaseMaxLength: 63,
  userMaxLength: 63,
  passwordMaxLength: 1024,
  caMaxLength: 65_536,
  perEnvironment: 1000,
  pageDefault: 100,
  pageMax: 1000,
} as const;

/** The label a password is sealed under: a ciphertext copied onto another data source does not open. */
export function dataSourcePasswordSealContext(environment: Environment, id: string): string {
  return `data-source-password:${environment}:${id}`;
}

export function toDataSourceView(record: DataSourceRecord): DataSourceView {
  return {
    id: record.id,
    name: record.name,
    kind: record.kind,
    connection: record.connection,
    passwordSet: record.passwordCiphertext !== null,
    version: record.version,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}
