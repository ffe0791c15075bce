import { createRequire } from 'node:module';
import { EpisodicError } from '@episodic/core';
import type BetterSqlite3 from 'better-sqlite3';

type DatabaseConstructor = typeof BetterSqlite3;

let driver: DatabaseConstructor | undefined;

/**
 * The fix for a better-sqlite3 that cannot be loaded, for the package managers people use. Its
 * native addon is built by an install script, which npm 11 and pnpm 10 run only once approved, and
 * it is built for one Node.js ABI, so switching Node versions needs a rebuild.
 */
function addonFix(): string {
  return `On Node.js 22.14 or newer, install better-sqlite3 13, which ships prebuilt binaries ("npm install better-sqlite3@13"). With better-sqlite3 12 (Node.js 20), approve and build its native addon in the project that installed Episodic: with npm, "npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3"; with pnpm, list better-sqlite3 in onlyBuiltDependencies (pnpm-workspace.yaml or package.json) and run "pnpm rebuild better-sqlite3"; after switching Node.js versions, rebuild it again (this is Node.js ${process.versions.node}, module ABI ${process.versions.modules}).`;
}

/**
 * Why the loader failed, whole, on one line. Node's module-version mismatch spans several lines
 * ("The module '…/better_sqlite3.node' / was compiled against a different Node.js version using /
 * NODE_MODULE_VERSION 115. This version of Node.js requires / NODE_MODULE_VERSION 127. …"): its
 * first line alone says nothing, and the two numbers tell which Node.js built the addon.
 */
export function loadFailureReason(error: unknown): string {
  const message =
    typeof (error as Error)?.message === 'string' ? (error as Error).message : String(error);
  const oneLine = message.replace(/\s*\n\s*/g, ' ').trim();
  const text = oneLine.length > 1_000 ? `${oneLine.slice(0, 1_000)}…` : oneLine;
  const [built, needed] = [...oneLine.matchAll(/NODE_MODULE_VERSION (\d+)/g)].map(
    (match) => match[1],
  );
  return built !== undefined && needed !== undefined
    ? `its native addon was built for NODE_MODULE_VERSION ${built}, and this Node.js ${process.versions.node} requires NODE_MODULE_VERSION ${needed}: ${text}`
    : text;
}

/** A `STORAGE_ERROR` saying better-sqlite3 (or its native addon) could not be loaded, and the fix. */
function driverError(error: unknown): EpisodicError {
  const reason = loadFailureReason(error);
  return new EpisodicError({
    code: 'STORAGE_ERROR',
    message: `better-sqlite3 could not be loaded (${reason}). ${addonFix()}`,
    details: {
      module: 'better-sqlite3',
      node: process.versions.node,
      abi: process.versions.modules,
    },
    cause: error,
  });
}

/** Whether a better-sqlite3 constructor error means its native addon is missing or unusable. */
function isAddonFailure(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === 'ERR_DLOPEN_FAILED' || code === 'MODULE_NOT_FOUND') return true;
  return (
    typeof message === 'string' &&
    /Could not locate the bindings file|NODE_MODULE_VERSION|better_sqlite3\.node|invalid ELF header|was compiled against a different Node\.js version/.test(
      message,
    )
  );
}

/**
 * Refuses a better-sqlite3 that cannot work on this Node.js, before it is loaded, since both
 * failures kill the process instead of throwing: 13 is built for Node-API 10 (Node >= 22.14) and
 * crashes on an older Node at the first `new Database`; 12 subclasses `node::ObjectWrap`, whose
 * destructor trips a Node 24 assertion (`(env) != nullptr`) when a statement is collected.
 */
function checkCompatibility(require: NodeJS.Require): void {
  let version: string;
  try {
    version = (require('better-sqlite3/package.json') as { version: string }).version;
  } catch {
    return; // not installed: the require below says so
  }
  const major = Number(version.split('.')[0]);
  const nodeApi = Number(process.versions.napi);
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  const fail = (why: string, fix: string) =>
    new EpisodicError({
      code: 'STORAGE_ERROR',
      message: `better-sqlite3 ${version} cannot run on Node.js ${process.versions.node}: ${why}. ${fix}`,
      details: { module: 'better-sqlite3', version, node: process.versions.node, napi: nodeApi },
    });
  if (major >= 13 && nodeApi < 10) {
    throw fail(
      `it needs Node-API 10 (Node.js 22.14 or newer), this Node.js has ${nodeApi}`,
      'Install better-sqlite3 12 next to Episodic ("npm install better-sqlite3@12", then approve and build it: "npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3"), or use Node.js 22.14 or newer.',
    );
  }
  if (major <= 12 && nodeMajor >= 24) {
    throw fail(
      'better-sqlite3 12 aborts the process on Node.js 24 when it frees a statement (an assertion in node::RemoveEnvironmentCleanupHook)',
      'Install better-sqlite3 13 ("npm install better-sqlite3@13"; it ships prebuilt binaries, no build step).',
    );
  }
}

/**
 * The better-sqlite3 `Database` class, required on first use (never at import time), so code that
 * only imports this package, and commands that never open a database, do not load the native addon.
 * better-sqlite3 is CommonJS: it is required directly instead of imported, which skips the ESM
 * loader's translation of a CommonJS module (about 3 ms of every CLI and MCP server start).
 */
function loadDriver(): DatabaseConstructor {
  if (driver === undefined) {
    const require = createRequire(import.meta.url);
    checkCompatibility(require);
    try {
      driver = require('better-sqlite3') as DatabaseConstructor;
    } catch (error) {
      throw driverError(error);
    }
  }
  return driver;
}

/**
 * Opens a better-sqlite3 connection. A missing or unbuilt native addon (better-sqlite3 loads it in
 * the constructor) is a `STORAGE_ERROR` that says how to build it; any other failure is thrown as
 * better-sqlite3 raised it, for the caller to phrase.
 */
export function newSqliteConnection(
  filename: string | Buffer,
  options: BetterSqlite3.Options,
): BetterSqlite3.Database {
  const Database = loadDriver();
  try {
    return new Database(filename, options);
  } catch (error) {
    if (isAddonFailure(error)) throw driverError(error);
    throw error;
  }
}
