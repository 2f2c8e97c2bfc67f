import type { Environment } from '../kernel/environment.js';
import { invalidRequest } from '../kernel/errors.js';
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

/** The attributes' size cap that JSON schema cannot express: the same as a group's properties. */
export function checkViewer(viewer: Viewer): Viewer {
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
