import type { GroupPagePart } from '../../user-groups/pages/group-page-routes.js';
import type { ViewerService } from '../viewer-service.js';

/** Viewers listed on a group's page, most recently seen first; a link pages on. */
const VIEWERS_SHOWN = 50;

/** A group's viewers on its console page (console/views/group-viewers.eta): the page of them asked for, or the most recent. */
export function groupViewers(viewers: ViewerService): GroupPagePart {
  return async (principal, userGroupId, extras) => {
    const page = await viewers.list(principal, userGroupId, { limit: VIEWERS_SHOWN, after: extras.viewersAfter });
    return { viewers: page.viewers, viewersNext: page.nextCursor, viewersPaged: extras.viewersAfter !== undefined };
  };
}
