import { UserGroupClient, type ViewerRevocation } from 'user-group-service/client';

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
 * DELETE /api/viewers/{id}/sessions with the app's API key, through the typed
 * client: every session of the viewer ends, in every group of the key's
 * environment. Failures throw UserGroupServiceError.
 */
export function endViewerSessions(serviceUrl: string, apiKey: string, viewerId: string): Promise<ViewerRevocation> {
  return new UserGroupClient({ baseUrl: serviceUrl, apiKey, retries: 0 }).revokeViewerSessions(viewerId);
}
