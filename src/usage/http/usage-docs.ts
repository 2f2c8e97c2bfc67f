/** What the routes of this folder share in their OpenAPI documentation. */
export const TAGS = ['Usage'];
export const LAG =
  'Counted in memory by each process and written every few seconds (UGS_ACTIVITY_FLUSH_MS), so a session shows within that delay; a crash loses at most that long of counts.';
