import { Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { ServiceError } from '../../kernel/errors.js';
import { parseJsonBody } from '../../platform/http/json-body-parser.js';
import { describeValidationFailure } from '../../platform/http/validation-message.js';
import type { FieldErrors } from '../../user-groups/pages/group-form.js';
import { ViewerBody, ViewerId } from '../http/viewer-schemas.js';
import { viewerIdNfcRefusal, type Viewer } from '../viewer.js';

/** The preview form's viewer fields, as typed: shown again beside the claims or the errors. */
export interface PreviewViewerValues {
  viewerId: string;
  attributes: string;
}

// The API's own schemas and options (app.ts: no coercion), wrapped as the API's body and path are, so each message names
// the field as the API's does ("viewer.id", "viewer.attributes", "viewer_id").
const ajv = new Ajv({ coerceTypes: false, removeAdditional: false, allErrors: false, strict: false });
const validatePreview = ajv.compile(Type.Object({ viewer: ViewerBody }));
const validateViewerId = ajv.compile(Type.Object({ viewer_id: ViewerId }));

/**
 * The viewer a preview is to be minted for: none when both fields are empty;
 * otherwise the id and the attributes (a JSON object) as POST
 * /api/embed_sessions would take them, or the errors to show beside the
 * fields, with the API's messages.
 */
export function parsePreviewViewer(values: PreviewViewerValues): { viewer: Viewer | undefined } | { errors: FieldErrors } {
  const noAttributes = values.attributes.trim() === '';
  if (values.viewerId === '' && noAttributes) return { viewer: undefined };
  if (values.viewerId === '') return { errors: { viewer: 'Attributes apply to a viewer: give its id too, or empty the attributes.' } };
  let attributes: unknown;
  if (!noAttributes) {
    try {
      attributes = parseJsonBody(values.attributes);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      return { errors: { attributes: error.message.replace('The request body', '"viewer.attributes"') } };
    }
  }
  const viewer = { id: values.viewerId, ...(attributes === undefined ? {} : { attributes }) };
  if (!validatePreview({ viewer })) {
    const found = validatePreview.errors ?? [];
    const field = found[0]?.instancePath.startsWith('/viewer/attributes') ? 'attributes' : 'viewer';
    return { errors: { [field]: describeValidationFailure(found as never) } };
  }
  return { viewer: viewer as Viewer };
}

/** Which preview field a refusal of the mint is about (the attributes' size is checked past the schema). */
export function previewFieldOf(error: ServiceError): 'viewer' | 'attributes' {
  return error.message.includes('"viewer.attributes"') ? 'attributes' : 'viewer';
}

/** Why a viewer id is not one DELETE /api/viewers/{viewer_id}/sessions would take, or null when it is. */
export function viewerIdRefusal(viewerId: string): string | null {
  if (!validateViewerId({ viewer_id: viewerId })) return describeValidationFailure((validateViewerId.errors ?? []) as never);
  return viewerIdNfcRefusal(viewerId, 'viewer_id');
}
