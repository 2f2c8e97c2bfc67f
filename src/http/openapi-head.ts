import { isJson, type Operation } from './openapi-document.js';

/**
 * Finishes a HEAD operation, documented after its GET (HTTP_METHODS order):
 * GET's statuses and headers, never a body. Fastify copies each GET route
 * into a HEAD one (exposeHeadRoutes), schema included, so @fastify/swagger
 * describes those with GET's summary and success bodies; HEAD /api/user is
 * its own route, a read that never creates.
 */
export function documentHead(key: string, operation: Operation, get: Operation | undefined): void {
  if (key === 'HEAD /api/user') {
    // The same query-string fields as GET's alternative to a body; without a body, user_group_id is needed there.
    operation.parameters = structuredClone(get?.parameters ?? []).map((parameter) => ({
      ...parameter,
      ...(parameter.name === 'user_group_id'
        ? { required: true, description: 'The group to look for.' }
        : { description: 'Checked as GET checks it (400 when invalid), else ignored: HEAD never creates.' }),
    }));
  } else {
    operation.summary = `${get?.summary ?? operation.summary ?? ''} (headers only)`.trim();
    operation.description = 'The status and headers GET answers, without a body.';
  }
  // A HEAD answer never has a body. Error answers keep their shared responses (their codes and headers apply as they are).
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (/^2/.test(status) && isJson(response)) delete response.content;
  }
}
