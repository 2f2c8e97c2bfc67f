/** The lowest Node.js that runs the service; package.json's engines.node starts here too. */
export const MIN_NODE_VERSION = '22.14.0';

/**
 * better-sqlite3 13 is a Node-API 10 addon. Node 20 (Node-API 9, never 10) and Node 22
 * before 22.14 load it and then die of a segmentation fault on the first database
 * open, so an older Node is refused up front with a sentence instead.
 */
const MIN_NODE_API = 10;

/** Why this Node cannot run the service, or undefined when it can. */
export function unsupportedNodeReason(versions: NodeJS.ProcessVersions = process.versions): string | undefined {
  if (Number(versions.napi) >= MIN_NODE_API) return undefined;
  return `Node.js ${MIN_NODE_VERSION} or newer is required; this is Node.js ${versions.node}.`;
}
