// store-fs's erasure log (docs/design/verify.md sections 1.5, 1.6 and 6): `sessions/erasures.jsonl`,
// one JSON line per redaction or collection of a chained stream, itself a chained line stream
// (stream kind `erasures`), appended under `sessions/locks/erasures.lock` and synced before the
// erasure it records goes ahead.
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  type ChainState,
  type ChainWriter,
  type ErasureEntry,
  newChainState,
  type RunChainLine,
  resumeChainState,
  runChainLines,
  safeJsonParse,
} from '@episodic/core/adapter';
import { type FileLockOptions, withFileLock } from './file-lock.js';
import { fsyncDirectory, readRegularFile, SESSIONS_DIR, type StoreRoot } from './store-layout.js';

const LOG_NAME = 'erasures.jsonl';
const LOCK_NAME = 'erasures.lock';

/** The erasure log of one fs store. */
export interface FsErasureLog {
  /**
   * Appends `entry` (its `id` unique) as a chained, synced line, unless an entry with that id is
   * already there (a redaction finished after a crash appends it once).
   */
  append(entry: ErasureEntry): Promise<void>;
  /** The entries, in stored order, without their chain members (unreadable lines skipped). */
  read(): ErasureEntry[];
  /** The log's stored lines, unparsed: what a chain verifier reads (stream kind `erasures`). */
  readChain(): RunChainLine[];
}

/** The `chain` member of a stored line, when it has one. */
function memberOf(text: string): { n?: unknown; k?: unknown } | undefined {
  const parsed = safeJsonParse(text.trimEnd());
  if (!parsed.success || typeof parsed.value !== 'object' || parsed.value === null)
    return undefined;
  const chain = (parsed.value as { chain?: unknown }).chain;
  return typeof chain === 'object' && chain !== null ? (chain as { n?: unknown }) : undefined;
}

/** The chain state after the log's lines: from the members since the last boundary. */
function stateAfter(lines: readonly RunChainLine[]): ChainState {
  let key: string | null = null;
  const members: Array<{ n: number }> = [];
  for (const { text } of lines) {
    const member = memberOf(text);
    if (typeof member?.n !== 'number') continue;
    if (typeof member.k === 'string') key ??= member.k;
    if (member.n % 64 === 0) members.length = 0;
    members.push(member as { n: number });
  }
  if (members.length === 0) return newChainState(lines.length);
  return resumeChainState(members, key);
}

/** Opens the erasure log of the store at `root`; nothing is created before the first append. */
export function createFsErasureLog(options: {
  root: StoreRoot;
  chain: ChainWriter;
  lock: FileLockOptions;
  /** Sync the log and its directory (false only with durability `none`). */
  sync: boolean;
}): FsErasureLog {
  const { root, chain, lock, sync } = options;
  const readLines = (): RunChainLine[] => {
    const directory = root.directory([SESSIONS_DIR], false);
    if (directory === null) return [];
    try {
      return runChainLines(readRegularFile(join(directory, LOG_NAME)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  };
  /**
   * What this process knows of the log after its last append: the file's size then, the chain
   * state and the ids. Reused while the size is unchanged (no other process appended), so that
   * `runs gc` deleting many runs does not read the whole log once per run.
   */
  let known: { size: number; state: ChainState; ids: Set<string> } | undefined;
  const idOf = (text: string): string | undefined => /"id":"([\w-]{22})"/.exec(text)?.[1];
  return {
    async append(entry) {
      const locks = root.directory([SESSIONS_DIR, 'locks'], true) as string;
      await withFileLock(join(locks, LOCK_NAME), lock, async () => {
        const directory = root.directory([SESSIONS_DIR], true) as string;
        const path = join(directory, LOG_NAME);
        const created = !fs.existsSync(path);
        const fd = fs.openSync(path, 'a+', 0o644);
        try {
          const { size } = fs.fstatSync(fd);
          if (known?.size !== size) {
            const lines = readLines();
            const ids = new Set<string>();
            for (const { text } of lines) {
              const id = idOf(text);
              if (id !== undefined) ids.add(id);
            }
            known = { size, state: stateAfter(lines), ids };
          }
          const current = known;
          if (current.ids.has(entry.id)) return;
          const stamped = chain.stampLine(current.state, JSON.stringify(entry));
          // A torn last line (a crash mid-append) stays one bad line instead of joining this one.
          let prefix = '';
          if (size > 0) {
            const last = Buffer.alloc(1);
            fs.readSync(fd, last, 0, 1, size - 1);
            if (last[0] !== 0x0a) prefix = '\n';
          }
          const bytes = Buffer.from(`${prefix}${stamped.line}\n`, 'utf8');
          known = undefined;
          const written = fs.writeSync(fd, bytes);
          if (sync) fs.fdatasyncSync(fd);
          if (written === bytes.length) {
            current.ids.add(entry.id);
            known = { size: size + bytes.length, state: stamped.state, ids: current.ids };
          }
        } finally {
          fs.closeSync(fd);
        }
        if (created && sync) fsyncDirectory(directory);
      });
    },
    read() {
      const entries: ErasureEntry[] = [];
      for (const { text } of readLines()) {
        const parsed = safeJsonParse(text.trimEnd());
        if (!parsed.success || typeof parsed.value !== 'object' || parsed.value === null) continue;
        const { chain: _chain, ...entry } = parsed.value as { chain?: unknown };
        entries.push(entry as ErasureEntry);
      }
      return entries;
    },
    readChain: readLines,
  };
}
