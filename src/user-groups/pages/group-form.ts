import { Ajv, type ErrorObject } from 'ajv';
import { ServiceError } from '../../kernel/errors.js';
import type { UpdateInput } from '../user-group-service.js';
import type { UserGroupSummary } from '../user-group.js';
import { parseJsonBody } from '../../platform/http/json-body-parser.js';
import { UpdateBody } from '../http/user-group-schemas.js';
import { describeValidationFailure } from '../../platform/http/validation-message.js';

/** The edit form's fields, as typed: shown again as they were when something is wrong. */
export interface GroupFormValues {
  name: string;
  mapping: string;
  properties: string;
}

/** `viewer` and `attributes` are the preview's (src/viewers/pages/viewer-form.ts). */
export type FormField = keyof GroupFormValues | 'confirm' | 'cascade' | 'form' | 'viewer' | 'attributes';
export type FieldErrors = Partial<Record<FormField, string>>;

// The API's own body schema and options (app.ts: no coercion), so the console accepts exactly what PUT /api/user accepts.
const ajv = new Ajv({ coerceTypes: false, removeAdditional: false, allErrors: false, strict: false });
const validateUpdate = ajv.compile(UpdateBody);

/** The form filled with what the group holds now. */
export function formValuesOf(group: UserGroupSummary): GroupFormValues {
  return {
    name: group.name,
    mapping: group.mapping === null ? '' : JSON.stringify(group.mapping, null, 2),
    properties: group.properties === null ? '' : JSON.stringify(group.properties, null, 2),
  };
}

/**
 * The update the form asks for, or the errors to show beside its fields:
 * JSON that does not parse, or a value the API's schema refuses, with the
 * API's message. An empty mapping is {}, empty properties clear them (null).
 */
export function parseGroupForm(userGroupId: string, values: GroupFormValues): { input: UpdateInput } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  const mapping = parseJsonField('mapping', values.mapping, {}, errors);
  const properties = parseJsonField('properties', values.properties, null, errors);
  if (Object.keys(errors).length > 0) return { errors };
  const body = { user_group_id: userGroupId, name: values.name, mapping, properties };
  if (!validateUpdate(body)) {
    const found = validateUpdate.errors ?? [];
    return { errors: { [fieldOf(found)]: describeValidationFailure(found as never) } };
  }
  return {
    input: {
      userGroupId,
      name: values.name,
      mapping: mapping as UpdateInput['mapping'],
      properties: properties as UpdateInput['properties'],
    },
  };
}

/** Which field a service refusal is about, by the field its message names; the form as a whole otherwise. */
export function fieldOfServiceError(error: ServiceError): FormField {
  for (const field of ['properties', 'mapping', 'name'] as const) if (error.message.includes(`"${field}`)) return field;
  return 'form';
}

function parseJsonField(field: 'mapping' | 'properties', text: string, empty: unknown, errors: FieldErrors): unknown {
  if (text.trim() === '') return empty;
  try {
    return parseJsonBody(text);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    errors[field] = error.message.replace('The request body', `"${field}"`);
    return undefined;
  }
}

function fieldOf(errors: readonly ErrorObject[]): FormField {
  const anyOf = errors.find((e) => e.keyword === 'anyOf');
  const first = (anyOf ?? errors[0])?.instancePath.split('/')[1];
  return first === 'name' || first === 'mapping' || first === 'properties' ? first : 'form';
}
