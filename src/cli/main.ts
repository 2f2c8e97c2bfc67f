#!/usr/bin/env node
// The entry point of `ugs` and `npm start`. It must run on any Node that can load it (14 and later) and
// import nothing but the version check: ES imports all load before any code runs, so on an old Node a
// statically imported command (node:zlib's crc32, a driver built for another Node-API) would fail with
// a stack trace before a check here could say why. Everything else is imported once the check passes.
import { unsupportedNodeReason } from './supported-node.js';

const unsupported = unsupportedNodeReason();
if (unsupported) {
  console.error(`ugs: ${unsupported}`);
  process.exitCode = 1;
} else {
  const { runProgram } = await import('./program.js');
  process.exitCode = await runProgram(process.argv, { stdout: process.stdout, stderr: process.stderr, stdin: () => process.stdin });
}
