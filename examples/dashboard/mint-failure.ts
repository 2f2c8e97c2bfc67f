import type { UserGroupServiceError } from 'user-group-service/client';

/**
 * What the customer app's page says when the service refused to mint a
 * session: the status it answers and a sentence that says what is wrong and
 * who can fix it. Only throttling and an unavailable service are worth a
 * retry; a refused key stays refused, so "try again later" would mislead.
 */
export function mintFailure(group: string, error: UserGroupServiceError): { status: number; why: string } {
  const service = `The user group service says: ${error.message}`;
  switch (error.code) {
    case 'not_found':
      // The service's message names the key's environment: a group of the other environment is not found either.
      return { status: 404, why: `There is no user group ${JSON.stringify(group)} for this app. ${service}` };
    case 'invalid_request':
      return { status: 400, why: `${JSON.stringify(group)} is not a user group id. ${service}` };
    case 'forbidden':
      return {
        status: 502,
        why: `This app's API key (UGS_API_KEY) may not mint embed sessions: a read-only key cannot. Start the app with a read-write or embed key (npx ugs keys create --access embed). ${service}`,
      };
    case 'unauthenticated':
      return {
        status: 502,
        why: `The user group service does not accept this app's API key (UGS_API_KEY): it was revoked, mistyped, or belongs to another service's store. ${service}`,
      };
    case 'network_error':
      return { status: 502, why: `The user group service cannot be reached: is it running at the address in UGS_URL? ${error.message}` };
    case 'rate_limited':
    case 'unavailable':
      return { status: 503, why: `The user group service is busy or not ready (${error.code}); reload in a moment.` };
    default:
      return { status: 502, why: `The user group service answered ${error.status} ${error.code}. ${service}` };
  }
}
