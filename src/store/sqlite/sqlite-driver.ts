import type BetterSqlite3 from 'better-sqlite3';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * better-sqlite3's Database, in the major that runs on this Node. Version 13
 * is a Node-API 10 addon (Node 22.14 and later): version 12 aborts on Node
 * 24.19+ when a dropped statement is garbage-collected, and version 13 cannot
 * run on Node 20, which has Node-API 9. Both are installed (12 under the
 * alias `better-sqlite3-node20`, built from source by `npm ci`) and have the
 * same API, so the rest of the store never knows which one it got.
 */
export const SqliteDatabase: typeof BetterSqlite3 =
  Number(process.versions.napi) >= 10 ? (require('better-sqlite3') as typeof BetterSqlite3) : (require('better-sqlite3-node20') as typeof BetterSqlite3);
