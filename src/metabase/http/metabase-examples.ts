/** What the Metabase settings routes' paths and OpenAPI examples show: invented values, never a real key. */
export const METABASE_SETTINGS_PATH = '/api/integrations/metabase';

export const EXAMPLE_METABASE_SETTINGS = {
  site_url: 'https://metabase.example.com',
  secret_key_set: true,
  max_expires_in: 3600,
  created_at: '2026-11-28T09:00:00.000Z',
  updated_at: '2026-11-28T09:00:00.000Z',
};
