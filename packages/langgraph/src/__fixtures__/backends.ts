import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryRunStore, type RunStore } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';

/** A fresh, empty run store of one backend, and how to close and remove it. */
export interface OpenedStore {
  readonly runs: RunStore;
  /** Where it lives on disk (for a second process to open), if anywhere. */
  readonly location?: string;
  close(): Promise<void>;
}

export interface Backend {
  readonly name: string;
  open(): OpenedStore;
  /** Opens the store another opener created (a second saver on the same home). */
  reopen?(location: string): OpenedStore;
}

function temporary(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

const files = (root: string, remove?: () => void): OpenedStore => {
  const store = createFsStore({ root, durability: 'none' });
  return {
    runs: store.runs,
    location: root,
    close: async () => {
      await store.close();
      remove?.();
    },
  };
};

const sqlite = (filename: string, remove?: () => void): OpenedStore => {
  const store = createSqliteStore({ filename });
  return {
    runs: store.runs,
    location: filename,
    close: async () => {
      await store.close();
      remove?.();
    },
  };
};

/**
 * Every backend the saver is validated on. A new Episodic store (e.g. PostgreSQL) is one more
 * entry here: the saver only needs its `RunStore`.
 */
export const BACKENDS: readonly Backend[] = [
  {
    name: 'memory',
    open: () => {
      const runs = createMemoryRunStore();
      return { runs, close: () => runs.close() };
    },
  },
  {
    name: 'files',
    open: () => {
      const directory = temporary('episodic-langgraph-fs-');
      return files(directory.path, directory.remove);
    },
    reopen: (location) => files(location),
  },
  {
    name: 'sqlite',
    open: () => {
      const directory = temporary('episodic-langgraph-sqlite-');
      return sqlite(join(directory.path, 'episodic.db'), directory.remove);
    },
    reopen: (location) => sqlite(location),
  },
];
