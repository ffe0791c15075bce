import { createHash } from 'node:crypto';
import type {
  SessionKey,
  SessionStoreEntry,
  SessionSummaryEntry,
} from '@anthropic-ai/claude-agent-sdk';
import type { RunHeader, RunRecord } from '@episodic/core';

/**
 * The run records a Claude Agent SDK session is kept as (custom seed 001 record types, so every
 * Episodic reader and `episodic runs show` reads them). One run per `SessionKey` (the main
 * transcript and each subagent transcript): its header, then one `x.claude_agent_sdk.entry` per
 * transcript line and, after each batch of the main transcript, one `x.claude_agent_sdk.summary`.
 * One run per project lists the keys written in it (`x.claude_agent_sdk.key`).
 */

/** The record type of one transcript line. */
export const ENTRY_RECORD_TYPE = 'x.claude_agent_sdk.entry';
/** The record type of the session summary after an append (`foldSessionSummary`'s result). */
export const SUMMARY_RECORD_TYPE = 'x.claude_agent_sdk.summary';
/** The record type of a key listed in its project's run. */
export const KEY_RECORD_TYPE = 'x.claude_agent_sdk.key';

/** The namespace of the UUIDv5 run ids of sessions and projects. */
export const CLAUDE_AGENT_SDK_RUN_NAMESPACE = '0b8f4c52-7d3e-4f61-9a2c-3e5d8b7a1f90';

/** A UUIDv5 (RFC 9562) of `name` in `namespace`. */
function uuidV5(name: string, namespace: string): string {
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The run id a session key is kept under: the same in every process. With a `scope` (pass it
 * normalized, as `EpisodicSessionStore` does) the id is the scope's, so one key in two scopes is
 * two runs; without one it is the id every earlier version used.
 */
export function sessionRunId(key: SessionKey, scope?: string): string {
  const name = ['session', key.projectKey, key.sessionId, key.subpath ?? null];
  return uuidV5(
    JSON.stringify(scope === undefined ? name : [...name, scope]),
    CLAUDE_AGENT_SDK_RUN_NAMESPACE,
  );
}

/**
 * The run id of the run that lists a project's keys; with a `scope`, the scope's (see
 * `sessionRunId`).
 */
export function projectRunId(projectKey: string, scope?: string): string {
  const name = ['project', projectKey];
  return uuidV5(
    JSON.stringify(scope === undefined ? name : [...name, scope]),
    CLAUDE_AGENT_SDK_RUN_NAMESPACE,
  );
}

/** What a run header's `meta.claude_agent_sdk` names: the key (session run) or the project. */
export interface KeyMeta {
  project_key: string;
  session_id?: string;
  subpath?: string;
}

export function metaOf(header: RunRecord | RunHeader | null | undefined): KeyMeta | undefined {
  if (header?.type !== 'header') return undefined;
  const meta = (header as RunHeader).meta as { claude_agent_sdk?: KeyMeta } | undefined;
  const named = meta?.claude_agent_sdk;
  return typeof named?.project_key === 'string' ? named : undefined;
}

interface RecordBase {
  [field: string]: unknown;
  run_id: string;
  ts: string;
  /** The one line `episodic runs show` prints. */
  summary: string;
}

export interface EntryRecord extends RecordBase {
  type: typeof ENTRY_RECORD_TYPE;
  entry: SessionStoreEntry;
}

export interface SummaryRecord extends RecordBase {
  type: typeof SUMMARY_RECORD_TYPE;
  session_summary: SessionSummaryEntry;
}

export interface KeyRecord extends RecordBase {
  type: typeof KEY_RECORD_TYPE;
  session_id: string;
  subpath?: string;
}

function clip(text: string, length = 80): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}

/** The one line `episodic runs show` prints for a transcript line. */
export function describeEntry(entry: SessionStoreEntry): string {
  const message = (entry as { message?: { role?: unknown; content?: unknown } }).message;
  let text = '';
  if (typeof message?.content === 'string') text = message.content;
  else if (Array.isArray(message?.content)) {
    const parts = message.content as Array<{ type?: unknown; text?: unknown; name?: unknown }>;
    text = parts
      .map((part) =>
        typeof part?.text === 'string'
          ? part.text
          : typeof part?.type === 'string'
            ? `[${part.type}${typeof part.name === 'string' ? ` ${part.name}` : ''}]`
            : '',
      )
      .filter((part) => part !== '')
      .join(' ');
  }
  const uuid = typeof entry.uuid === 'string' ? ` [${entry.uuid.slice(0, 8)}]` : '';
  return clip(`${entry.type}${text === '' ? '' : `: ${text}`}`) + uuid;
}
