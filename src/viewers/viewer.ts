import type { Environment } from '../kernel/environment.js';
import { invalidRequest } from '../kernel/errors.js';
import { nfcRefusal } from '../kernel/nfc-ids.js';
import { LIMITS, type Properties } from '../user-groups/user-group.js';

/** Who views a group's dashboard, as the backend that mints names them: no registry, a viewer exists because a session named it. */
export interface Viewer {
  /** The customer's own id for the person (1 to 255 characters). */
  id: string;
  /** Overlaid on the group's effective properties in the token's `props`: an attribute wins, a null hides the property. */
  attributes?: Properties;
}

export const VIEWER_LIMITS = {
  idMaxLength: 255,
  /** Viewers page size (GET /api/user_groups/{id}/viewers). */
  pageMax: 1000,
  pageDefault: 100,
} as const;

/** What the service knows of a viewer in one group: from the counted sessions, written in batches. */
export interface ViewerActivity {
  environment: Environment;
  teamId: number;
  viewerId: string;
  firstSeenAt: string;
  lastSeenAt: string;
  sessions: number;
}

/** A position in a group's viewers, most recently seen first. */
export interface ViewerPosition {
  lastSeenAt: string;
  viewerId: string;
}

/**
 * Why a viewer id cannot name a viewer beyond what the wire schema says, or null: it must be in Unicode NFC, as
 * new group ids, so that the id a session was minted with and the one its sessions are ended by cannot differ
 * unseen. `field` is where the caller wrote it: "viewer.id" in a mint's body, "viewer_id" in a path or form.
 */
export function viewerIdNfcRefusal(viewerId: string, field: 'viewer.id' | 'viewer_id'): string | null {
  return nfcRefusal(viewerId, field, 'viewer ids', 'viewers');
}

/** viewerIdNfcRefusal's answer as a 400 invalid_request. */
export function checkViewerId(viewerId: string, field: 'viewer.id' | 'viewer_id'): string {
  const refusal = viewerIdNfcRefusal(viewerId, field);
  if (refusal !== null) throw invalidRequest(refusal);
  return viewerId;
}

/** What JSON schema cannot express: the id in NFC, the attributes' size cap (the same as a group's properties). */
export function checkViewer(viewer: Viewer): Viewer {
  checkViewerId(viewer.id, 'viewer.id');
  if (viewer.attributes !== undefined) {
    const bytes = Buffer.byteLength(JSON.stringify(viewer.attributes));
    if (bytes > LIMITS.propertiesMaxBytes)
      throw invalidRequest(
        `"viewer.attributes" is ${bytes} bytes when serialized; the limit is ${LIMITS.propertiesMaxBytes} bytes (64 KiB), as for properties.`,
      );
  }
  return viewer;
}

/** A viewer's `props`: the group's effective properties, an attribute replacing the property of its name, a null removing it. */
export function overlaidProperties(properties: Properties, attributes: Properties | undefined): Properties {
  if (attributes === undefined) return properties;
  // A Map and fromEntries, so that a name such as "__proto__" is a plain key like any other.
  const merged = new Map(Object.entries(properties));
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null) merged.delete(name);
    else merged.set(name, value);
  }
  return Object.fromEntries(merged);
}
