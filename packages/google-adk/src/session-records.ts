import { createHash } from 'node:crypto';
import type { RunHeader, RunRecord } from '@episodic/core';

/**
 * The run records ADK sessions are kept as (custom seed 001 record types, so every Episodic reader
 * and `episodic runs show` reads them). Three kinds of run:
 *
 * - one run per session: its header, one `x.google_adk.session` (the initial state and the
 *   creation time), then one `x.google_adk.event` per appended event, as appended;
 * - one run per (app, user): the `user:` state deltas (`x.google_adk.user_state`) and the sessions
 *   created for that user (`x.google_adk.session_listed`);
 * - one run per app: the `app:` state deltas (`x.google_adk.app_state`) and the users that have
 *   sessions (`x.google_adk.user_listed`).
 */

/** The record type that opens a session run: its initial state and creation time. */
export const SESSION_RECORD_TYPE = 'x.google_adk.session';
/** The record type of one appended event (an event appended again with its id replaces it). */
export const EVENT_RECORD_TYPE = 'x.google_adk.event';
/** The record type of the `user:` keys of one event's state delta (prefix removed). */
export const USER_STATE_RECORD_TYPE = 'x.google_adk.user_state';
/** The record type of the `app:` keys of one event's state delta (prefix removed). */
export const APP_STATE_RECORD_TYPE = 'x.google_adk.app_state';
/** The record type of a session listed in its user's run. */
export const SESSION_LISTED_RECORD_TYPE = 'x.google_adk.session_listed';
/** The record type of a user listed in its app's run. */
export const USER_LISTED_RECORD_TYPE = 'x.google_adk.user_listed';

/** The namespace of the UUIDv5 run ids of sessions, users and apps. */
export const GOOGLE_ADK_RUN_NAMESPACE = '6d1f3a9e-52c4-4b8e-9f07-a3c2e1d4b5f6';

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

/** The run id an ADK session is kept under: the same in every process. */
export function sessionRunId(appName: string, userId: string, sessionId: string): string {
  return uuidV5(JSON.stringify(['session', appName, userId, sessionId]), GOOGLE_ADK_RUN_NAMESPACE);
}

/** The run id of a user's state and session list. */
export function userRunId(appName: string, userId: string): string {
  return uuidV5(JSON.stringify(['user', appName, userId]), GOOGLE_ADK_RUN_NAMESPACE);
}

/** The run id of an app's state and user list. */
export function appRunId(appName: string): string {
  return uuidV5(JSON.stringify(['app', appName]), GOOGLE_ADK_RUN_NAMESPACE);
}

/** What a run header's `meta.google_adk` names: the app, the user (user run) and the session. */
export interface RunMeta {
  app_name: string;
  user_id?: string;
  session_id?: string;
}

export function metaOf(header: RunRecord | RunHeader | null | undefined): RunMeta | undefined {
  if (header?.type !== 'header') return undefined;
  const meta = (header as RunHeader).meta as { google_adk?: RunMeta } | undefined;
  const named = meta?.google_adk;
  return typeof named?.app_name === 'string' ? named : undefined;
}

export function describeMeta(meta: RunMeta): string {
  if (meta.session_id !== undefined) {
    return `session ${JSON.stringify(meta.session_id)} of user ${JSON.stringify(meta.user_id)} in app ${JSON.stringify(meta.app_name)}`;
  }
  if (meta.user_id !== undefined) {
    return `user ${JSON.stringify(meta.user_id)} of app ${JSON.stringify(meta.app_name)}`;
  }
  return `app ${JSON.stringify(meta.app_name)}`;
}

interface RecordBase {
  [field: string]: unknown;
  run_id: string;
  ts: string;
  /** The one line `episodic runs show` prints. */
  summary: string;
}

export interface SessionRecord extends RecordBase {
  type: typeof SESSION_RECORD_TYPE;
  /** The initial state (without `temp:` keys), as `createSession` received it. */
  state: Record<string, unknown>;
  /** Milliseconds since the epoch: the session's `lastUpdateTime` until an event is appended. */
  create_time: number;
}

export interface EventRecord extends RecordBase {
  type: typeof EVENT_RECORD_TYPE;
  /** The event as appended (JSON), `temp:` state keys removed as ADK removes them. */
  event: Record<string, unknown>;
  /** The event carried ADK's event mark (`createEvent`'s symbol): it is put back when read. */
  adk_event?: true;
}

export interface StateRecord extends RecordBase {
  type: typeof USER_STATE_RECORD_TYPE | typeof APP_STATE_RECORD_TYPE;
  /** The keys written, without their `user:`/`app:` prefix. */
  delta: Record<string, unknown>;
  /** The session and event that wrote them. */
  session_id: string;
  event_id: string;
}

export interface SessionListedRecord extends RecordBase {
  type: typeof SESSION_LISTED_RECORD_TYPE;
  session_id: string;
}

export interface UserListedRecord extends RecordBase {
  type: typeof USER_LISTED_RECORD_TYPE;
  user_id: string;
}

function clip(text: string, length = 80): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}

/** The one line `episodic runs show` prints for an event: its author and text or parts. */
export function describeEvent(event: Record<string, unknown>): string {
  const author = typeof event.author === 'string' ? event.author : 'event';
  const content = event.content as { parts?: unknown } | undefined;
  const parts = Array.isArray(content?.parts)
    ? (content.parts as Array<Record<string, unknown>>)
    : [];
  const text = parts
    .map((part) => {
      if (typeof part?.text === 'string') return part.text;
      const call = part?.functionCall as { name?: unknown } | undefined;
      if (typeof call?.name === 'string') return `[call ${call.name}]`;
      const response = part?.functionResponse as { name?: unknown } | undefined;
      if (typeof response?.name === 'string') return `[response ${response.name}]`;
      return '';
    })
    .filter((part) => part !== '')
    .join(' ');
  const actions = event.actions as { stateDelta?: unknown } | undefined;
  const delta =
    typeof actions?.stateDelta === 'object' && actions.stateDelta !== null
      ? Object.keys(actions.stateDelta)
      : [];
  const state = delta.length === 0 ? '' : ` {${delta.join(', ')}}`;
  return clip(`${author}${text === '' ? '' : `: ${text}`}${state}`);
}
