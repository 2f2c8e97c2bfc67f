import { Type, type Static } from '@sinclair/typebox';
import { EnvironmentTag } from '../../platform/http/schemas.js';
import { CHECK_FAILURES } from '../connection-check.js';
import { DATA_SOURCE_KINDS, DATA_SOURCE_LIMITS, SSL_MODES } from '../data-source.js';

/** The data source part of the wire (/api/data_sources and its siblings). */

const L = DATA_SOURCE_LIMITS;

export const DataSourceIdParams = Type.Object({
  data_source_id: Type.String({
    minLength: 1,
    maxLength: L.idMaxLength,
    description: 'The data source id (URL-encoded): what mapping values name.',
  }),
});

const Kind = Type.Unsafe<(typeof DATA_SOURCE_KINDS)[number]>({
  type: 'string',
  enum: [...DATA_SOURCE_KINDS],
  description: 'The database kind.',
});
const SslMode = Type.Unsafe<(typeof SSL_MODES)[number]>({
  type: 'string',
  enum: [...SSL_MODES],
  description:
    "libpq's modes: disable (plain), require (encrypted, server not verified), verify-ca (its certificate chains to `ca`), verify-full (and names `host`).",
});

const SslInput = Type.Object(
  {
    mode: Type.Optional(SslMode),
    ca: Type.Optional(
      Type.Union([Type.String({ maxLength: L.caMaxLength, description: 'PEM certificates; the system roots when absent.' }), Type.Null()]),
    ),
  },
  { additionalProperties: false, description: 'TLS; `{ "mode": "disable" }` when absent.' },
);

const connectionInput = (required: boolean) => {
  const field = <T extends import('@sinclair/typebox').TSchema>(schema: T) => (required ? schema : Type.Optional(schema));
  return Type.Object(
    {
      host: field(
        Type.String({ minLength: 1, maxLength: L.hostMaxLength, description: 'A host name or IP address, without scheme or port.' }),
      ),
      port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65_535, description: '5432 when absent.' })),
      database: field(Type.String({ minLength: 1, maxLength: L.databaseMaxLength })),
      user: field(Type.String({ minLength: 1, maxLength: L.userMaxLength })),
      password: Type.Optional(
        Type.Union([Type.String({ maxLength: L.passwordMaxLength }), Type.Null()], {
          description: 'Sealed at rest with the server secret and never returned (only `password_set`); null removes it.',
        }),
      ),
      ssl: Type.Optional(SslInput),
    },
    { additionalProperties: false },
  );
};

export const CreateDataSourceBody = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: L.idMaxLength,
      description: 'Yours to choose: the value group mappings name (e.g. "213").',
    }),
    name: Type.String({ minLength: 1, maxLength: L.nameMaxLength }),
    kind: Kind,
    connection: connectionInput(true),
  },
  { additionalProperties: false },
);
export type CreateDataSourceBody = Static<typeof CreateDataSourceBody>;

export const UpdateDataSourceBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: L.nameMaxLength })),
    kind: Type.Optional(Kind),
    connection: Type.Optional(connectionInput(false)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateDataSourceBody = Static<typeof UpdateDataSourceBody>;

export const ListDataSourcesQuery = Type.Object({
  after: Type.Optional(Type.String({ minLength: 1, maxLength: L.idMaxLength, description: 'The next_cursor of the previous page.' })),
  limit: Type.Integer({ minimum: 1, maximum: L.pageMax, default: L.pageDefault }),
});

export const DeleteDataSourceQuery = Type.Object({
  force: Type.Boolean({ default: false, description: 'Delete even while groups map to it: their values then resolve to no data source.' }),
});

const Ssl = Type.Object({ mode: SslMode, ca: Type.Optional(Type.String()) });
const Connection = Type.Object({ host: Type.String(), port: Type.Integer(), database: Type.String(), user: Type.String(), ssl: Ssl });

const DataSource = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Kind,
  connection: Connection,
  password_set: Type.Boolean({ description: 'Whether a password is stored; the password itself is never returned.' }),
  version: Type.Integer({ description: 'Counts its changes: 1 when created.' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const DataSourceResponse = Type.Object({ success: Type.Literal(1), data_source: DataSource });

export const DataSourceDetailResponse = Type.Object({
  success: Type.Literal(1),
  data_source: Type.Object({
    ...DataSource.properties,
    mapped_groups: Type.Object(
      {
        total: Type.Integer({ description: "How many groups' own mappings name it." }),
        user_group_ids: Type.Array(Type.String(), { description: 'The first 20 of them, in id order.' }),
      },
      { description: 'The groups whose own mapping names it (their sub-groups inherit it).' },
    ),
  }),
});

export const DataSourcesResponse = Type.Object({
  success: Type.Literal(1),
  data_sources: Type.Array(DataSource),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` for the next page; null on the last.' }),
});

export const CredentialsResponse = Type.Object({
  success: Type.Literal(1),
  data_source: Type.Object({
    id: Type.String(),
    api_environment_tag: EnvironmentTag,
    kind: Kind,
    version: Type.Integer(),
    connection: Type.Object({ ...Connection.properties, password: Type.Union([Type.String(), Type.Null()]) }),
  }),
});

export const CheckResponse = Type.Object({
  success: Type.Literal(1),
  check: Type.Object({
    reachable: Type.Boolean({ description: 'A PostgreSQL server answered at the address.' }),
    authenticated: Type.Boolean({ description: 'The user and password were accepted and the database exists.' }),
    server_version: Type.Union([Type.String(), Type.Null()]),
    superuser: Type.Union([Type.Boolean(), Type.Null()], { description: 'Row policies do not bind a superuser.' }),
    bypass_rls: Type.Union([Type.Boolean(), Type.Null()], { description: 'Row policies do not bind a role with BYPASSRLS.' }),
    tls: Type.Union([Type.Boolean(), Type.Null()], { description: 'Whether the connection was encrypted.' }),
    failure: Type.Union([Type.Unsafe<(typeof CHECK_FAILURES)[number]>({ type: 'string', enum: [...CHECK_FAILURES] }), Type.Null()], {
      description: 'Why the check stopped, as a category (never the server text); null when it connected.',
    }),
    duration_ms: Type.Integer(),
  }),
});

export const DeleteResponse = Type.Object({ success: Type.Literal(1) });
