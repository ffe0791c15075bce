import { createHash } from 'node:crypto';
import type { RunHeader, RunRecord } from '@episodic/core';
import type { AgentInputItem, SessionHistoryMutation } from '@openai/agents-core';
import type { StoredTransaction, ValuePath } from './history-values.js';

/**
 * The run records an OpenAI Agents SDK session is kept as (custom seed 001 record types, so every
 * Episodic reader and `episodic runs show` reads them). One run per session: its header, then one
 * record per change, in order. History is append-only: `popItem`, `clearSession`,
 * `applyHistoryMutations` and `applyHistoryTransaction` are records too, folded on read.
 */

/** One item added by `addItems`. */
export const ITEM_RECORD_TYPE = 'x.openai_agents.item';
/** `popItem`: the last item of the history is removed. */
export const POP_RECORD_TYPE = 'x.openai_agents.pop';
/** `clearSession`: every item (and every applied transaction id) is removed. */
export const CLEAR_RECORD_TYPE = 'x.openai_agents.clear';
/** `applyHistoryMutations`: the mutations, applied in order. */
export const MUTATIONS_RECORD_TYPE = 'x.openai_agents.mutations';
/** `applyHistoryTransaction`: an idempotent append or suffix replacement, with its operation id. */
export const TRANSACTION_RECORD_TYPE = 'x.openai_agents.transaction';

/** The namespace of the UUIDv5 run ids of sessions. */
export const OPENAI_AGENTS_RUN_NAMESPACE = '5d2a7c1e-93b4-4e0f-8a61-c4f7b2d9e038';

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
 * The run id a session is kept under: the same in every process. A session id in one scope and the
 * same id in another scope (or in none) are different runs.
 */
export function sessionRunId(sessionId: string, scope?: string): string {
  return uuidV5(JSON.stringify(['session', scope ?? null, sessionId]), OPENAI_AGENTS_RUN_NAMESPACE);
}

/** What a run header's `meta.openai_agents` names. */
export interface SessionMeta {
  session_id: string;
}

export function metaOf(header: RunRecord | RunHeader | null | undefined): SessionMeta | undefined {
  if (header?.type !== 'header') return undefined;
  const meta = (header as RunHeader).meta as { openai_agents?: SessionMeta } | undefined;
  const named = meta?.openai_agents;
  return typeof named?.session_id === 'string' ? named : undefined;
}

interface RecordBase {
  [field: string]: unknown;
  run_id: string;
  ts: string;
  /** The one line `episodic runs show` prints. */
  summary: string;
  /** Where the record's value held bytes (a `Uint8Array`), stored there as base64. */
  binary?: ValuePath[];
}

export interface ItemRecord extends RecordBase {
  type: typeof ITEM_RECORD_TYPE;
  item: AgentInputItem;
}

export interface PopRecord extends RecordBase {
  type: typeof POP_RECORD_TYPE;
}

export interface ClearRecord extends RecordBase {
  type: typeof CLEAR_RECORD_TYPE;
}

export interface MutationsRecord extends RecordBase {
  type: typeof MUTATIONS_RECORD_TYPE;
  mutations: SessionHistoryMutation[];
}

export interface TransactionRecord extends RecordBase {
  type: typeof TRANSACTION_RECORD_TYPE;
  operation_id: string;
  transaction: StoredTransaction;
}

export type SessionRecord =
  | ItemRecord
  | PopRecord
  | ClearRecord
  | MutationsRecord
  | TransactionRecord;

function clip(text: string, length = 80): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: { type?: unknown; text?: unknown; refusal?: unknown }) =>
      typeof part?.text === 'string'
        ? part.text
        : typeof part?.refusal === 'string'
          ? part.refusal
          : typeof part?.type === 'string'
            ? `[${part.type}]`
            : '',
    )
    .filter((part) => part !== '')
    .join(' ');
}

/** The one line `episodic runs show` prints for an item. */
export function describeItem(item: AgentInputItem): string {
  const fields = item as Record<string, unknown>;
  const type = typeof fields.type === 'string' ? fields.type : undefined;
  if ((type === undefined || type === 'message') && typeof fields.role === 'string') {
    return clip(`${fields.role}: ${contentText(fields.content)}`);
  }
  const name = typeof fields.name === 'string' ? ` ${fields.name}` : '';
  const call = typeof fields.callId === 'string' ? ` [${fields.callId}]` : '';
  let detail = '';
  if (type === 'function_call' && typeof fields.arguments === 'string') detail = fields.arguments;
  else if (type === 'reasoning') detail = contentText(fields.content);
  return clip(`${type ?? 'item'}${name}${call}${detail === '' ? '' : `: ${detail}`}`);
}
