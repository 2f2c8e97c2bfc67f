import { isJson, type Json, type Media, type Operation } from './openapi-document.js';

/** Request and response examples for the OpenAPI document: hand-written for /api/user, derived from the schemas elsewhere. */
const TOKEN = 'ugt_EXAMPLE0not0a0real0token0000000000000000000000000';
const NEW_TOKEN = 'ugt_EXAMPLE0the0new0token000000000000000000000000000';

/** Hand-written examples where the schemas' own examples cannot make a useful one; others are synthesized. */
const EXAMPLES: Readonly<Record<string, { request?: Media['examples']; response?: Media['examples'] }>> = {
  'GET /api/user': {
    request: {
      create: {
        summary: 'Get the group, creating it when missing',
        value: { user_group_id: 'acme', name: 'Acme Inc.', mapping: { '40': '213' }, properties: { region: 'eu' } },
      },
      get: { summary: 'Get an existing group (name only needed to create)', value: { user_group_id: 'acme' } },
    },
    response: {
      created: {
        summary: 'Created by this call',
        value: { success: 1, new_user_group: true, user_group: { team_id: 1, token: TOKEN, name: 'Acme Inc.', provided_id: 'acme', properties: { region: 'eu' } } },
      },
      existing: {
        summary: 'Already there',
        value: { success: 1, new_user_group: false, user_group: { team_id: 1, token: TOKEN, name: 'Acme Inc.', provided_id: 'acme', properties: { region: 'eu' } } },
      },
    },
  },
  'PUT /api/user': {
    request: {
      update: { summary: 'Rename and replace the properties', value: { user_group_id: 'acme', name: 'Acme Corp.', properties: { region: 'us' } } },
      clear: { summary: 'Clear the properties', value: { user_group_id: 'acme', properties: null } },
    },
    response: {
      updated: {
        summary: 'The group after the update; the token is unchanged',
        value: {
          success: 1,
          user_group: { team_id: 1, token: TOKEN, name: 'Acme Corp.', provided_id: 'acme', properties: { region: 'us' }, api_environment_tag: 'Customer' },
        },
      },
    },
  },
  'POST /api/user': {
    request: { rotate: { summary: 'Rotate the token', value: { current_token: TOKEN } } },
    response: {
      rotated: {
        summary: 'The group with its new token; the old one no longer works',
        value: { success: 1, user_group: { team_id: 1, token: NEW_TOKEN, name: 'Acme Inc.', provided_id: 'acme', api_environment_tag: 'Customer' } },
      },
    },
  },
};

export function addExamples(key: string, operation: Operation): void {
  const explicit = EXAMPLES[key];
  for (const media of Object.values(operation.requestBody?.content ?? {})) fillExamples(media, explicit?.request);
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (!/^2/.test(status)) continue;
    for (const media of Object.values(response.content ?? {})) fillExamples(media, explicit?.response);
  }
}

function fillExamples(media: Media, explicit: Media['examples']): void {
  if (explicit) {
    delete media.example;
    media.examples = explicit;
    return;
  }
  if (media.example !== undefined || media.examples !== undefined) return;
  const example = sample(media.schema);
  // Only JSON bodies: a placeholder for a bare string (a text answer) would say nothing.
  if (typeof example === 'object' && example !== null) media.example = example;
}

/** Values for fields whose schema carries no example of its own. */
const NAMED_SAMPLES: Readonly<Record<string, unknown>> = {
  user_group_id: 'acme',
  provided_id: 'acme',
  name: 'Acme Inc.',
  token: TOKEN,
  current_token: TOKEN,
};

/** An example value for a schema: its own examples first, then a plausible value of its type. */
function sample(schema: unknown, depth = 0, name?: string): unknown {
  if (!isJson(schema) || depth > 16) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const members = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(members)) {
    const withExample = members.find((m) => isJson(m) && (m.example !== undefined || Array.isArray(m.examples)));
    if (withExample) return sample(withExample, depth + 1, name);
    if (members.some((m) => isJson(m) && m.type === 'null')) return null;
    return sample(members[0], depth + 1, name);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Json = {};
      for (const [field, property] of Object.entries((schema.properties ?? {}) as Json)) {
        const value = sample(property, depth + 1, field);
        if (value !== undefined) out[field] = value;
      }
      return out;
    }
    case 'array': {
      const item = sample(schema.items, depth + 1);
      return item === undefined ? [] : [item];
    }
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'date-time') return '2025-01-31T12:00:00.000Z';
      return name !== undefined && typeof NAMED_SAMPLES[name] === 'string' ? NAMED_SAMPLES[name] : 'string';
    case 'null':
      return null;
    default:
      return undefined;
  }
}
