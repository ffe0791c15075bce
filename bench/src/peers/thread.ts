import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRandom, prose } from '../data/text.js';
import { benchPaths } from '../lib/context.js';

/**
 * One system of the peer comparison holding one conversation thread: Episodic (a session in the fs
 * or SQLite store), LangGraph JS (a checkpointed graph thread) or Mastra (a memory thread).
 */
export interface ThreadSystem {
  /** Appends one turn: a user message and the assistant's answer, committed when it resolves. */
  appendTurn(): Promise<void>;
  /**
   * Stores one turn's messages (a user message and the assistant's answer) without running a
   * turn, as an agent framework that runs its own loop hands them over; undefined when the system
   * has no such call.
   */
  saveTurn?(): Promise<void>;
  /** Loads the whole thread as a user of the system does; resolves with its message count. */
  load(): Promise<number>;
  /** What the system measured about itself (e.g. the share of a turn spent in the checkpointer). */
  notes(): string[];
  close(): Promise<void>;
}

/** A durability mode: short for the table, in full for the notes. */
export interface Durability {
  mode: string;
  text: string;
}

/** How a system of the comparison is built, opened and described. */
export interface ThreadSystemKind {
  /** `episodic-fs`, `episodic-fs-unsynced`, `episodic-sqlite`, `langgraph`, `mastra`. */
  readonly id: string;
  /** The system whose cached threads it opens, when it shares another's (same files). */
  readonly datasetId?: string;
  /** What a reader sees: `LangGraph JS 1.7.3 + SqliteSaver`. */
  readonly label: string;
  /** Part of the cache key of its threads: the version that wrote them. */
  cacheKey(): string;
  /** Writes a thread of `messages` messages into `directory`, through the system's own API. */
  build(directory: string, messages: number): Promise<void>;
  open(directory: string): Promise<ThreadSystem>;
  /** Its durability as configured, read back from the system where possible. */
  durability(directory: string): Promise<Durability>;
}

/** The thread every system holds (one per data set). */
export const THREAD_ID = '7e1d0000-0000-4000-8000-000000000001';
export const RESOURCE_ID = 'bench-user';

/** Message `index` of a thread: users and the assistant alternate, ~180 characters of prose each. */
export function threadMessage(index: number): { role: 'user' | 'assistant'; text: string } {
  return {
    role: index % 2 === 0 ? 'user' : 'assistant',
    text: prose(createRandom(index + 7), 180),
  };
}

/** The user message and the answer of every appended turn. */
export const TURN_USER = prose(createRandom(303), 100);
export const TURN_ANSWER = prose(createRandom(404), 200);

/**
 * Environment variables that keep the peers from phoning home: Mastra's PostHog telemetry
 * (`MASTRA_TELEMETRY_DISABLED`) and LangSmith tracing (off unless these are set, set off anyway).
 */
export const PEER_TELEMETRY_OFF: Readonly<Record<string, string>> = {
  MASTRA_TELEMETRY_DISABLED: '1',
  LANGSMITH_TRACING: 'false',
  LANGSMITH_TRACING_V2: 'false',
  LANGCHAIN_TRACING: 'false',
  LANGCHAIN_TRACING_V2: 'false',
  DO_NOT_TRACK: '1',
};

/** Applies `PEER_TELEMETRY_OFF` to this process (before a peer is imported). */
export function disablePeerTelemetry(): void {
  Object.assign(process.env, PEER_TELEMETRY_OFF);
}

const SYNCHRONOUS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

/** `journal_mode` and `synchronous` as a row names them: `WAL FULL`, `WAL, synchronous=FULL`. */
export function sqliteDurability(
  journalMode: unknown,
  synchronous: unknown,
  source: string,
): Durability {
  const level = SYNCHRONOUS[Number(synchronous)] ?? String(synchronous);
  const journal = String(journalMode).toUpperCase();
  return { mode: `${journal} ${level}`, text: `${source}: ${journal}, synchronous=${level}` };
}

/** The installed version of a bench dependency (`bench/node_modules/<name>/package.json`). */
export function installedVersion(name: string): string {
  const path = join(benchPaths().bench, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
}
