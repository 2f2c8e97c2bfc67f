import { Ajv } from 'ajv';
import { ServiceError } from '../../kernel/errors.js';
import { parseJsonBody } from '../../platform/http/json-body-parser.js';
import { describeValidationFailure } from '../../platform/http/validation-message.js';
import type { GetOrCreateInput, UpdateInput } from '../../user-groups/user-group-service.js';
import { GetOrCreateBody, UpdateBody } from '../../user-groups/http/user-group-schemas.js';
import { CliError } from '../run-command.js';

/*
 * What `ugs groups create` and `update` send the service, checked as the API checks it: the options become the body
 * GET /api/user or PUT /api/user would carry, JSON read by the body parser's own rules, and the body validated with the
 * route's schema and the app's Ajv options (no coercion), so the CLI accepts exactly what the API accepts and says why
 * in the API's words. Loaded only by those two commands: nothing else needs the schemas.
 */

const ajv = new Ajv({ coerceTypes: false, removeAdditional: false, allErrors: false, strict: false });
const validCreate = ajv.compile(GetOrCreateBody);
const validUpdate = ajv.compile(UpdateBody);

export interface GroupOptions {
  name?: string;
  /** A user_group_id; false: `--no-parent` (update only: make it a root). */
  parent?: string | false;
  properties?: string;
  clearProperties?: boolean;
  mapping?: string;
}

/** `--properties` or `--mapping` as JSON, refused in one line naming the option. */
function json(option: string, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return parseJsonBody(text);
  } catch (error) {
    if (error instanceof ServiceError) throw new CliError(error.message.replace(/^The request body/, option));
    throw error;
  }
}

function checked(valid: typeof validCreate, body: Record<string, unknown>): void {
  if (!valid(body)) throw new CliError(describeValidationFailure((valid.errors ?? []) as never));
}

export function createInput(userGroupId: string, options: GroupOptions): GetOrCreateInput {
  const body = {
    user_group_id: userGroupId,
    name: options.name,
    ...(options.mapping !== undefined && { mapping: json('--mapping', options.mapping) }),
    ...(options.properties !== undefined && { properties: json('--properties', options.properties) }),
    ...(typeof options.parent === 'string' && { parent_user_group_id: options.parent }),
  };
  checked(validCreate, body);
  return {
    userGroupId,
    name: options.name,
    mapping: body.mapping as GetOrCreateInput['mapping'],
    properties: body.properties as GetOrCreateInput['properties'],
    parentUserGroupId: body.parent_user_group_id,
  };
}

/** The update the options ask for, only what was given; null when nothing was. */
export function updateInput(userGroupId: string, options: GroupOptions): UpdateInput | null {
  const body = {
    user_group_id: userGroupId,
    ...(options.name !== undefined && { name: options.name }),
    ...(options.mapping !== undefined && { mapping: json('--mapping', options.mapping) }),
    ...(options.properties !== undefined && { properties: json('--properties', options.properties) }),
    ...(options.clearProperties && { properties: null }),
    ...(options.parent !== undefined && { parent_user_group_id: options.parent === false ? null : options.parent }),
  };
  if (Object.keys(body).length === 1) return null;
  checked(validUpdate, body);
  return {
    userGroupId,
    name: body.name,
    mapping: body.mapping as UpdateInput['mapping'],
    properties: body.properties as UpdateInput['properties'],
    parentUserGroupId: body.parent_user_group_id,
  };
}
