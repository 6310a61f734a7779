import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * Which build of better-sqlite3 this Node.js can run.
 *
 * - better-sqlite3 12 wraps its objects with node::ObjectWrap. From Node 24.19 on, a prepared
 *   statement that is garbage-collected makes the process abort (`Assertion failed: (env) !=
 *   nullptr` in RemoveEnvironmentCleanupHook), and Kysely prepares a statement per query.
 * - better-sqlite3 13 is built on Node-API and ships prebuilt binaries, but supports Node >= 22 only
 *   (its binary crashes on Node 20).
 *
 * 12 is a dependency; 13 is an optional one under the alias `better-sqlite3-napi`, which npm skips on
 * Node 20 (`engine-strict` in .npmrc). We load the one made for the running Node. The API is the same.
 */
const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

export const SqliteDatabase: typeof BetterSqlite3 = require(nodeMajor >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3');
export type SqliteDatabase = BetterSqlite3.Database;
