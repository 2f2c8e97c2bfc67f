import { EXAMPLE_TARGET_URL } from './webhook-schemas.js';

/** What the webhook routes' OpenAPI examples show: invented values, never a real secret. */
export const WEBHOOK_TAGS = ['Webhooks'];

export const EXAMPLE_SECRET = 'whsec_EXAMPLE0not0a0real0secret0000000000';

export const EXAMPLE_WEBHOOK = {
  id: 'wh_5f2b7c1e9a3d4b6c8e0f1a2b',
  url: EXAMPLE_TARGET_URL,
  events: ['*'] as ['*'],
  description: null,
  created_at: '2026-11-23T12:00:00.000Z',
  disabled_at: null,
  failing_since: null,
};

export const EXAMPLE_DELIVERY = {
  id: 'whd_Hq0rV6lmT1y9BzXc4KdsEw',
  event_id: 'evt_8f14e45fceea167a5a36dedd4bea2543',
  event_type: 'user_group.created',
  status: 'succeeded' as const,
  attempts: 2,
  next_attempt_at: null,
  created_at: '2026-11-23T12:00:01.000Z',
  attempt_log: [
    { attempt: 1, at: '2026-11-23T12:00:01.000Z', status_code: 503, duration_ms: 41, error: 'HTTP 503', response_excerpt: 'busy' },
    { attempt: 2, at: '2026-11-23T12:00:06.000Z', status_code: 204, duration_ms: 12, error: null, response_excerpt: null },
  ],
};
