import {
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  compact,
  createSession,
  type InputItem,
  type ModelCall,
  type NewEpisode,
  type Session,
  type SessionStore,
} from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import type { BenchContext } from '../lib/context.js';
import { formatCount } from '../lib/context.js';
import { implementationKey } from './implementation.js';
import { asciiProse, createRandom, prose } from './text.js';
import { DATA_VERSION } from './version.js';

/**
 * The session every commit row starts from has this many episodes (about 3.5 MB stored): above
 * the size up to which the default fold policy folds on every commit (`FOLD_EVERY_COMMIT_BYTES`),
 * so the commit rows measure the amortized regime, as DESIGN.md §10 asks. The small-session
 * commit has its own informational row.
 */
export const SMALL_SESSION_EPISODES = 10_000;

/**
 * `SessionFoldPolicy.currentUpToBytes`'s default in @episodic/core: a session stored in at most
 * this many bytes folds on every commit.
 */
export const FOLD_EVERY_COMMIT_BYTES = 1024 * 1024;

/** The two session stores the session rows measure. */
export type SessionBackend = 'fs' | 'sqlite';

export const SESSION_BACKENDS: readonly SessionBackend[] = ['fs', 'sqlite'];

/** A session store opened on a directory, and how to close it. */
export interface OpenedSessionStore {
  readonly sessions: SessionStore;
  close(): Promise<void>;
}

/**
 * The session store of `backend` over `directory`: the fs store with the directory as its root
 * (durability `'run'`, the default) or the SQLite store on `directory/episodic.db` (WAL,
 * synchronous `NORMAL`, the default). Both as a user opens them, with no option changed, unless
 * `fsDurability` names another fs durability (the peer rows that match a peer's durability).
 */
export function openSessionStore(
  backend: SessionBackend,
  directory: string,
  fsDurability: 'none' | 'run' = 'run',
): OpenedSessionStore {
  mkdirSync(directory, { recursive: true });
  if (backend === 'fs') {
    const store = createFsStore({ root: directory, durability: fsDurability });
    return { sessions: store.sessions, close: () => store.close() };
  }
  const store = createSqliteStore({ filename: join(directory, 'episodic.db') });
  return { sessions: store.sessions, close: () => store.close() };
}

/** What each backend's rows name as their durability mode (and the fs store's unsynced mode). */
export const SESSION_DURABILITY: Record<
  SessionBackend | 'fs-unsynced',
  { mode: string; text: string }
> = {
  fs: {
    mode: "fs 'run', synced",
    text: "fs store, durability 'run' (the default): a session commit is synced to disk before it is acknowledged",
  },
  'fs-unsynced': {
    mode: "fs 'none', not synced",
    text: "fs store, durability 'none': a session commit is written to the file before it is acknowledged (it survives a process crash) but not synced, so a power loss may lose the last commits (the class of SQLite's WAL with synchronous=NORMAL)",
  },
  sqlite: {
    mode: 'WAL NORMAL',
    text: 'SQLite store, WAL with synchronous=NORMAL (the default): a commit survives a process crash; the WAL is synced at checkpoints, so a power loss may roll back the last commits',
  },
};

/** A UUIDv4-shaped id generator: `family` tells data sets apart, ids count up from 1. */
export function sequentialIds(family: number): () => string {
  let counter = 0;
  const prefix = `5e55${family.toString(16).padStart(4, '0')}-0000-4000-8000-`;
  return () => `${prefix}${(++counter).toString(16).padStart(12, '0')}`;
}

/** A clock that moves 37 ms per reading from a fixed start (data sets are the same on every run). */
export function steadyClock(): () => Date {
  let clock = Date.UTC(2026, 1, 3, 12);
  return () => {
    clock += 37;
    return new Date(clock);
  };
}

/**
 * The `index`-th input item of a long session (~150–250 bytes as an episode): a user message, a
 * tool call, its output and an assistant message, in turn. `last` is the turn's item count: the
 * last incomplete group is filled with user messages, so no call is split from its output.
 */
function sessionItemAt(index: number, count: number): InputItem {
  const random = createRandom(index + 11);
  const kind = index >= count - (count % 4) ? 0 : index % 4;
  switch (kind) {
    case 0:
      return { type: 'message', role: 'user', content: prose(random, 90) };
    case 1:
      return {
        type: 'function_call',
        call_id: `call-${index}`,
        name: 'read_file',
        arguments: `{"path":"src/${asciiProse(random, 12).replaceAll(' ', '-')}.ts"}`,
      };
    case 2:
      return {
        type: 'function_call_output',
        call_id: `call-${index - 1}`,
        output: prose(random, 120),
      };
    default:
      return { type: 'message', role: 'assistant', content: prose(random, 110) };
  }
}

function sessionItems(count: number): InputItem[] {
  return Array.from({ length: count }, (_, index) => sessionItemAt(index, count));
}

/** A model that answers at once with one assistant message of `text`. */
export function instantModel(text: string): ModelCall {
  return () => ({ output: [{ type: 'message', role: 'assistant', content: text }] });
}

/** A turn's user message and answer as episodes, as a framework adapter commits them. */
export function turnEpisodes(user: string, answer: string): NewEpisode[] {
  return [
    {
      type: 'item',
      meta: { source: 'user' },
      payload: { item: { type: 'message', role: 'user', content: user } },
    },
    {
      type: 'item',
      meta: { source: 'model' },
      payload: { item: { type: 'message', role: 'assistant', content: answer } },
    },
  ];
}

/** The user text and the model answer of a measured turn (~100 and ~200 characters). */
export const TURN_USER_TEXT = prose(createRandom(101), 100);
export const TURN_ANSWER_TEXT = prose(createRandom(202), 200);

/** Episodes per build turn of a long session (the turn's input items, its answer, a checkpoint). */
const BUILD_TURN_EPISODES = 100_000;

/**
 * Builds a session of exactly `episodes` episodes through the public API only: turns whose input is
 * many items (at most 100,000 episodes each), each followed by `compact()`, so the session ends
 * at a checkpoint as a long, compacted session does and the next turn's model input starts there.
 */
async function buildCompactedSession(
  context: BenchContext,
  session: Session,
  episodes: number,
): Promise<void> {
  const turns = Math.ceil(episodes / BUILD_TURN_EPISODES);
  const perTurn = episodes / turns;
  if (!Number.isInteger(perTurn) || perTurn < 3) {
    throw new Error(`a ${episodes}-episode session cannot be split into ${turns} equal turns`);
  }
  const answer = instantModel(TURN_ANSWER_TEXT);
  const started = Date.now();
  for (let turn = 0; turn < turns; turn++) {
    await session.runTurn(sessionItems(perTurn - 2), answer);
    await compact(session, { summarize: () => prose(createRandom(turn + 1), 400) });
    if (turns > 1) {
      context.log(
        `  ${formatCount(session.log.size)} episodes (${((Date.now() - started) / 1000).toFixed(0)} s)`,
      );
    }
  }
  if (session.log.size !== episodes) {
    throw new Error(`built ${session.log.size} episodes instead of ${episodes}`);
  }
}

/** Writes the committed log as JSONL (what the load probe parses), without one giant string. */
async function writeEpisodesJsonl(session: Session, path: string): Promise<void> {
  const episodes = session.log.read({ fromId: 0 });
  const out = createWriteStream(path);
  const batch = 10_000;
  for (let first = 0; first < episodes.length; first += batch) {
    let text = '';
    const end = Math.min(episodes.length, first + batch);
    for (let index = first; index < end; index++) text += `${JSON.stringify(episodes[index])}\n`;
    if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}

/** Bytes of every file under `directory` (SQLite's shared-memory index is not data: left out). */
export function storeBytes(directory: string): number {
  let total = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name.endsWith('-shm')) continue;
    total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** A cached session data set (`bench/.data/session-…`). */
export interface SessionDataset {
  backend: SessionBackend;
  episodes: number;
  sessionId: string;
  /** The store directory (fs root, or the folder of `episodic.db`). Copy it before writing. */
  store: string;
  /** On-disk size of the store directory. */
  bytes: number;
  /** The same episodes as JSONL, for the load probe. */
  jsonl: string;
  jsonlBytes: number;
  /** The implementation that wrote it (see `implementationKey`). */
  implementation: string;
  buildSeconds: number;
}

/**
 * A clean copy of a cached store directory at `target` (rows write into copies only: the cached
 * data set stays as it was built).
 */
export function copyStore(source: string, target: string): void {
  rmSync(target, { recursive: true, force: true });
  cpSync(source, target, {
    recursive: true,
    filter: (path) => !path.endsWith('-shm') && !path.endsWith('.lock'),
  });
}

/** Removes older cached data sets named `prefix…` other than `keep`. */
export function removeStaleDatasets(context: BenchContext, prefix: string, keep: string): void {
  for (const name of readdirSync(context.paths.data)) {
    if (name.startsWith(prefix) && name !== keep) {
      rmSync(join(context.paths.data, name), { recursive: true, force: true });
    }
  }
}

/**
 * A session of `episodes` episodes in the `backend` store, built through the public API (see
 * `buildCompactedSession`) and cached by data version and implementation.
 */
export async function ensureSessionDataset(
  context: BenchContext,
  backend: SessionBackend,
  episodes: number,
): Promise<SessionDataset> {
  const implementation = implementationKey();
  const prefix = `session-${backend}-${episodes}-`;
  const name = `${prefix}v${DATA_VERSION}-${implementation}`;
  const directory = join(context.paths.data, name);
  const infoPath = join(directory, 'info.json');
  if (existsSync(infoPath)) return JSON.parse(readFileSync(infoPath, 'utf8')) as SessionDataset;
  // A build fails the same way every time for one implementation: say so without rebuilding.
  const failedPath = join(context.paths.data, `${name}.failed.txt`);
  if (existsSync(failedPath)) {
    throw new Error(
      `building this data set failed with this implementation (${implementation}): ${readFileSync(failedPath, 'utf8')}`,
    );
  }
  removeStaleDatasets(context, prefix, name);
  const temporary = `${directory}.tmp`;
  rmSync(temporary, { recursive: true, force: true });
  context.log(
    `building a ${formatCount(episodes)}-episode session in the ${backend} store through the public API…`,
  );
  const started = Date.now();
  const sessionId = sequentialIds(backend === 'fs' ? 1 : 2)();
  const opened = openSessionStore(backend, join(temporary, 'store'));
  let failure: Error | undefined;
  const session = createSession({
    store: opened.sessions,
    id: sessionId,
    now: steadyClock(),
    generateId: sequentialIds(3),
  });
  try {
    await buildCompactedSession(context, session, episodes);
    await writeEpisodesJsonl(session, join(temporary, 'episodes.jsonl'));
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
  } finally {
    await opened.close();
  }
  if (failure !== undefined) {
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    writeFileSync(
      failedPath,
      `${failure.message} (with ${formatCount(session.log.size)} episodes committed, after ${seconds} s)`,
    );
    rmSync(temporary, { recursive: true, force: true });
    throw failure;
  }
  const buildSeconds = (Date.now() - started) / 1000;
  const info: SessionDataset = {
    backend,
    episodes,
    sessionId,
    store: join(directory, 'store'),
    bytes: storeBytes(join(temporary, 'store')),
    jsonl: join(directory, 'episodes.jsonl'),
    jsonlBytes: statSync(join(temporary, 'episodes.jsonl')).size,
    implementation,
    buildSeconds,
  };
  writeFileSync(join(temporary, 'info.json'), JSON.stringify(info, null, 2));
  renameSync(temporary, directory);
  context.log(`  built in ${buildSeconds.toFixed(1)} s`);
  return info;
}
