/** The lowest Node.js that runs the service; package.json's engines.node starts here too. */
export const MIN_NODE_VERSION = '22.14.0';

/**
 * The Node lines the service supports, with the lowest release of each: 22
 * from 22.14, the first with Node-API 10, which better-sqlite3 13 needs (on
 * an older Node its addon fails on the first database open, on Node 20 it
 * crashes the process), and 24. Others (20, past its end of life; the odd
 * lines; 26, not tested here) are refused up front with a sentence instead.
 */
const SUPPORTED_LINES: Record<number, number> = { 22: 14, 24: 0 };

/** Why this Node cannot run the service, or undefined when it can. */
export function unsupportedNodeReason(versions: Pick<NodeJS.ProcessVersions, 'node'> = process.versions): string | undefined {
  const [major = 0, minor = 0] = versions.node.split('.').map(Number);
  const lowestMinor = SUPPORTED_LINES[major];
  if (lowestMinor !== undefined && minor >= lowestMinor) return undefined;
  return `Node.js ${MIN_NODE_VERSION} or newer on the 22 line, or Node.js 24, is required; this is Node.js ${versions.node}.`;
}
