import { Ajv, type ErrorObject } from 'ajv';
import type { ServiceError } from '../../kernel/errors.js';
import { describeValidationFailure } from '../../platform/http/validation-message.js';
import { formField } from '../../console/pages/form-body-parser.js';
import { DATA_SOURCE_KINDS, type DataSourceView, type SslMode } from '../data-source.js';
import type { DataSourceInput, DataSourceUpdate } from '../data-source-service.js';
import { CreateDataSourceBody, UpdateDataSourceBody } from '../http/data-source-schemas.js';

/**
 * The Add and Edit forms' fields as typed, shown again when something is wrong. The password is not among them: it
 * is write-only, never put back into a page (a refused form asks for it again).
 */
export interface DataSourceFormValues {
  id: string;
  name: string;
  kind: string;
  host: string;
  port: string;
  database: string;
  user: string;
  sslMode: string;
  sslCa: string;
  /** Edit only: the "Remove the password" box. */
  removePassword: boolean;
}

export type DataSourceFormField =
  'id' | 'name' | 'kind' | 'host' | 'port' | 'database' | 'user' | 'password' | 'ssl_mode' | 'ssl_ca' | 'form' | 'confirm' | 'force';
export type DataSourceFieldErrors = Partial<Record<DataSourceFormField, string>>;

export const EMPTY_DATA_SOURCE_FORM: DataSourceFormValues = {
  id: '',
  name: '',
  kind: DATA_SOURCE_KINDS[0],
  host: '',
  port: '5432',
  database: '',
  user: '',
  sslMode: 'disable',
  sslCa: '',
  removePassword: false,
};

// The API's own body schemas and options (no coercion), so the console accepts exactly what POST and PUT
// /api/data_sources accept, and says so in the API's words.
const ajv = new Ajv({ coerceTypes: false, removeAdditional: false, allErrors: false, strict: false });
const validateCreate = ajv.compile(CreateDataSourceBody);
const validateUpdate = ajv.compile(UpdateDataSourceBody);

/** The Edit form filled with what the data source holds now (never a password: it has none to show). */
export function formValuesOf(view: DataSourceView): DataSourceFormValues {
  const { connection } = view;
  return {
    id: view.id,
    name: view.name,
    kind: view.kind,
    host: connection.host,
    port: String(connection.port),
    database: connection.database,
    user: connection.user,
    sslMode: connection.ssl.mode,
    sslCa: connection.ssl.ca ?? '',
    removePassword: false,
  };
}

export function dataSourceFormValues(body: unknown): DataSourceFormValues {
  return {
    id: formField(body, 'id'),
    name: formField(body, 'name'),
    kind: formField(body, 'kind') || DATA_SOURCE_KINDS[0],
    host: formField(body, 'host').trim(),
    port: formField(body, 'port').trim(),
    database: formField(body, 'database'),
    user: formField(body, 'user'),
    sslMode: formField(body, 'ssl_mode'),
    sslCa: formField(body, 'ssl_ca'),
    removePassword: formField(body, 'remove_password') === '1',
  };
}

/** The data source the Add form asks for, or the errors to show beside its fields. An empty password field sets none. */
export function parseAddForm(
  values: DataSourceFormValues,
  password: string,
): { input: DataSourceInput } | { errors: DataSourceFieldErrors } {
  const port = parsePort(values.port);
  if (port === 'invalid') return { errors: { port: PORT_RULE } };
  const body = {
    id: values.id,
    name: values.name,
    kind: values.kind,
    connection: {
      host: values.host,
      ...(port === undefined ? {} : { port }),
      database: values.database,
      user: values.user,
      ...(password === '' ? {} : { password }),
      ssl: { mode: values.sslMode, ...(values.sslCa.trim() === '' ? {} : { ca: values.sslCa }) },
    },
  };
  if (!validateCreate(body)) return { errors: errorsOf(validateCreate.errors) };
  return { input: body as DataSourceInput };
}

/**
 * The change the Edit form asks for: every field as shown (the service writes only what differs), the password only
 * when one is typed (empty keeps it) or removed by the box, and an emptied CA removed.
 */
export function parseEditForm(
  values: DataSourceFormValues,
  password: string,
): { update: DataSourceUpdate } | { errors: DataSourceFieldErrors } {
  if (values.removePassword && password !== '')
    return { errors: { password: 'Type a new password or tick "Remove the password", not both.' } };
  const port = parsePort(values.port);
  if (port === 'invalid') return { errors: { port: PORT_RULE } };
  const body = {
    name: values.name,
    connection: {
      host: values.host,
      ...(port === undefined ? {} : { port }),
      database: values.database,
      user: values.user,
      ...(values.removePassword ? { password: null } : password === '' ? {} : { password }),
      ssl: { mode: values.sslMode as SslMode, ca: values.sslCa.trim() === '' ? null : values.sslCa },
    },
  };
  if (!validateUpdate(body)) return { errors: errorsOf(validateUpdate.errors) };
  return { update: body as DataSourceUpdate };
}

/** Which field a service refusal is about, by the field its message names (`"connection.host" …`); the form as a whole otherwise. */
export function dataSourceFieldOf(error: ServiceError): DataSourceFormField {
  for (const [named, field] of FIELDS_BY_NAME) if (error.message.includes(`"${named}"`)) return field;
  return 'form';
}

const PORT_RULE = '"connection.port" is a whole number from 1 to 65535.';

/** The fields as the API names them, most specific first (`"connection.ssl.ca"` before `"connection"`). */
const FIELDS_BY_NAME: readonly (readonly [string, DataSourceFormField])[] = [
  ['connection.ssl.ca', 'ssl_ca'],
  ['connection.ssl.mode', 'ssl_mode'],
  ['connection.host', 'host'],
  ['connection.port', 'port'],
  ['connection.database', 'database'],
  ['connection.user', 'user'],
  ['connection.password', 'password'],
  ['id', 'id'],
  ['name', 'name'],
  ['kind', 'kind'],
];

/** '' is the default port; digits alone are a port, anything else is refused before the schema sees it. */
function parsePort(text: string): number | undefined | 'invalid' {
  if (text === '') return undefined;
  return /^\d{1,5}$/.test(text) ? Number(text) : 'invalid';
}

function errorsOf(found: ErrorObject[] | null | undefined): DataSourceFieldErrors {
  const errors = found ?? [];
  const anyOf = errors.find((e) => e.keyword === 'anyOf');
  const first = anyOf ?? errors[0];
  const missing = first?.keyword === 'required' ? `/${String((first.params as { missingProperty?: string }).missingProperty)}` : '';
  const path = `${first?.instancePath ?? ''}${missing}`.split('/').filter(Boolean).join('.');
  const field = FIELDS_BY_NAME.find(([named]) => named === path)?.[1] ?? 'form';
  return { [field]: describeValidationFailure(errors as never) };
}
