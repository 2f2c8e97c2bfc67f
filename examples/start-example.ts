// The one module an example's entry point (main.ts) imports, and it imports nothing but the CLI's own version check.
// ES imports all load before any code runs: on a Node the service does not run on, an example's own imports (the
// SQLite driver, built for another Node-API) crashed it, on Node 20 with a bare "Segmentation fault", before any
// check among them could say why. `ugs` refuses such a Node in one line (src/cli/main.ts); the examples say the same.
import { unsupportedNodeReason } from '../src/cli/supported-node.js';

/** Loads the example (`load`, a dynamic import of its code) on a supported Node; else says why in one line and exits 1. */
export async function startExample(name: string, load: () => Promise<unknown>): Promise<void> {
  const unsupported = unsupportedNodeReason();
  if (unsupported !== undefined) {
    console.error(`${name}: ${unsupported}`);
    process.exitCode = 1;
    return;
  }
  await load();
}
