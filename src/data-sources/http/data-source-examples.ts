/** What the data source routes' OpenAPI examples show: invented values, never a real password. */
export const DATA_SOURCE_TAGS = ['Data sources'];

export const EXAMPLE_CONNECTION = {
  host: 'db.internal.example',
  port: 5432,
  database: 'acme',
  user: 'dashboards',
  ssl: { mode: 'verify-full' as const },
};

export const EXAMPLE_DATA_SOURCE = {
  id: '213',
  name: 'Acme warehouse',
  kind: 'postgresql' as const,
  connection: EXAMPLE_CONNECTION,
  password_set: true,
  version: 1,
  created_at: '2026-11-28T12:00:00.000Z',
  updated_at: '2026-11-28T12:00:00.000Z',
};
