import { ANY_REQUEST_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../../platform/http/route-docs.js';
import { StatusResponse } from '../../../platform/http/schemas.js';

/** The OpenAPI operation of a health probe (liveness.ts, readiness.ts): no key, a status word when up. */
export function healthOperation(summary: string, description: string, status: string) {
  return {
    summary,
    description,
    tags: ['Operations'],
    security: [],
    response: {
      200: documented(StatusResponse, { description: 'Up.', examples: { [status]: { summary, value: { success: 1, status } } } }),
      ...errorAnswers(ANY_REQUEST_ERRORS, BODY_ERRORS),
    },
  };
}
