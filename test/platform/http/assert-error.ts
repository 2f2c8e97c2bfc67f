import assert from 'node:assert/strict';
import type { RawResponse } from '../../helpers/http-client.js';

/**
 * Checks one failure on the wire: the status, a JSON content type and the
 * envelope `{"success":0,"error":{"code":...,"message":...,"request_id":...}}` with a non-empty
 * message and the request id of the `X-Request-Id` header, so a user can quote either. Returns the
 * message so callers can check it names the field.
 */
export function assertError(res: RawResponse, status: number, code: string): string {
  const context = `${res.status} ${res.text.slice(0, 500)}`;
  assert.equal(res.status, status, context);
  assert.match(String(res.headers['content-type']), /^application\/json/, context);
  let body: { success?: unknown; error?: { code?: unknown; message?: unknown; request_id?: unknown } };
  try {
    body = res.json;
  } catch {
    assert.fail(`the error body is not JSON: ${context}`);
  }
  assert.equal(body.success, 0, context);
  assert.equal(typeof body.error, 'object', context);
  assert.equal(body.error?.code, code, context);
  assert.equal(typeof body.error?.message, 'string', context);
  const message = body.error?.message as string;
  assert.ok(message.length > 0, `empty error message: ${context}`);
  const requestId = res.headers['x-request-id'];
  assert.ok(typeof requestId === 'string' && requestId.length > 0, `no X-Request-Id header: ${context}`);
  assert.equal(body.error?.request_id, requestId, `error.request_id differs from X-Request-Id: ${context}`);
  return message;
}
