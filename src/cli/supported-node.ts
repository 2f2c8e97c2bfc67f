/** The lowest Node.js that runs the service; package.json's engines.node starts here too. */
export const MIN_NODE_VERSION = '20.15.0';

/**
 * The SQLite driver needs Node-API 10 (Node 22.14 and later), or is the
 * better-sqlite3 12 build that Node 20 runs (src/store/sqlite/sqlite-driver.ts).
 * Any other Node (18, 21, 22 before 22.14) would load a driver and then die on
 * the first database open, so it is refused up front with a sentence instead.
 */
const MIN_NODE_API = 10;

/** Why this Node cannot run the service, or undefined when it can. */
export function unsupportedNodeReason(versions: NodeJS.ProcessVersions = process.versions): string | undefined {
  const [major = 0, minor = 0] = versions.node.split('.').map(Number);
  if (Number(versions.napi) >= MIN_NODE_API || (major === 20 && minor >= 15)) return undefined;
  return `Node.js ${MIN_NODE_VERSION} or newer on the 20 line, or 22.14.0 or newer, is required; this is Node.js ${versions.node}.`;
}
