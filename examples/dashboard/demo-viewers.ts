import { UserGroupServiceError } from 'user-group-service/client';

/**
 * The people of the customer app, as its own user directory would hold them:
 * each is minted as a viewer (`viewer.id`) with the attributes the dashboard
 * narrows by. Here any group has the same two; a real app looks the person up
 * from its login session, never from the URL.
 */
export const DEMO_VIEWERS: Readonly<Record<string, { readonly sales_rep: string }>> = {
  ana: { sales_rep: 'ana' },
  ben: { sales_rep: 'ben' },
};

export function isDemoViewer(id: string): boolean {
  return Object.hasOwn(DEMO_VIEWERS, id);
}

/**
 * DELETE /api/viewers/{id}/sessions with the app's API key: every session of
 * the viewer ends, in every group of the key's environment. Failures throw
 * UserGroupServiceError, as the typed client's calls do.
 */
export async function endViewerSessions(
  serviceUrl: string,
  apiKey: string,
  viewerId: string,
): Promise<{ viewerId: string; revokedAt: string }> {
  const url = `${serviceUrl.replace(/\/+$/, '')}/api/viewers/${encodeURIComponent(viewerId)}/sessions`;
  let answer: Response;
  try {
    answer = await fetch(url, { method: 'DELETE', headers: { authorization: `Token ${apiKey}`, accept: 'application/json' } });
  } catch (error) {
    throw new UserGroupServiceError(0, 'network_error', `Could not reach the service: ${(error as Error).message}`, undefined);
  }
  const body = (await answer.json().catch(() => ({}))) as {
    viewer_id?: string;
    revoked_at?: string;
    error?: { code?: string; message?: string; request_id?: string };
  };
  if (answer.ok && body.viewer_id !== undefined && body.revoked_at !== undefined) {
    return { viewerId: body.viewer_id, revokedAt: body.revoked_at };
  }
  const code = (body.error?.code ?? (answer.status >= 500 ? 'internal' : 'invalid_request')) as UserGroupServiceError['code'];
  throw new UserGroupServiceError(answer.status, code, body.error?.message ?? `HTTP ${answer.status}`, body.error?.request_id);
}
