import {
  createEpisodic,
  digestRun,
  type Episode,
  EpisodicError,
  type RunDigest,
  type RunModelInfo,
  runTitle,
  snapshotEpisodes,
} from '@episodic/core';
import type { StoredRedactionOptions } from '@episodic/core/adapter';
import type { CommandHandler } from '../command-spec.js';
import { localAndRelative, relativeTime } from '../human-time.js';
import { sessionIdArgument } from '../id-arguments.js';
import { writeNotes } from '../notes.js';
import { flag, optionalInteger } from '../option-values.js';
import { createStyles, renderFields, renderTable } from '../output.js';
import { styleStatus } from '../run-status.js';
import { describeRunStore, notFoundWhere, otherRunStoreNotes } from '../store-notes.js';
import { sessionRedactionOutput, storedRedactionOptions } from '../stored-redaction.js';
import { withRunStores } from '../stores.js';

/** `sessions list`. */
export const list: CommandHandler = async (context) => {
  const limit = optionalInteger(context.options, 'limit', { min: 1 });
  const { all, lastRuns, location } = await withRunStores(
    context,
    async (stores) => {
      const all = await stores.sessions.list();
      // The last run of each listed session, read whole for its status, model and tokens.
      const lastRuns = new Map<string, { digest: RunDigest; model: RunModelInfo | undefined }>();
      for (const session of (limit === undefined ? all : all.slice(0, limit)).slice(0, 200)) {
        if (session.runId === undefined) continue;
        const read = await stores.runs.read(session.runId).catch(() => undefined);
        if (read === undefined) continue;
        lastRuns.set(session.sessionId, {
          digest: digestRun(read.records),
          model: read.header?.model,
        });
      }
      return { all, lastRuns, location: stores.location };
    },
    { readOnly: true },
  );
  const store = location.store;
  const notes = await otherRunStoreNotes(location, all.length > 0);
  if (all.length === 0)
    notes.unshift(`No session snapshots found in ${describeRunStore(location)}.`);
  const sessions = (limit === undefined ? all : all.slice(0, limit)).map((session) => ({
    session_id: session.sessionId,
    updated_at: session.updatedAt,
    revision: session.revision,
    run_id: session.runId ?? null,
    episode_count: session.episodeCount ?? null,
    message_count: session.messageCount,
    base_revision: session.baseRevision,
    last_user_message: session.lastUserMessage ?? null,
    ...lastRunFields(session.updatedAt, lastRuns.get(session.sessionId)),
  }));
  return {
    receipt: {
      store,
      store_source: location.storeSource,
      count: sessions.length,
      total: all.length,
      sessions,
      notes,
    },
    render: (write) => {
      const now = Date.now();
      const styles = createStyles(context.globals.color, context.globals.width);
      if (sessions.length > 0) {
        write(
          renderTable(
            sessions,
            [
              { header: 'SESSION', value: (session) => session.session_id, fixed: true },
              {
                header: 'LAST USER MESSAGE',
                value: (session) =>
                  session.last_user_message === null ? '' : runTitle(session.last_user_message),
                max: 40,
              },
              {
                header: 'LAST ACTIVITY',
                value: (session) => relativeTime(session.last_activity_at, now),
              },
              { header: 'EPISODES', value: (session) => session.episode_count, align: 'right' },
              {
                header: 'LAST RUN',
                value: (session) => session.last_run_status ?? '',
                style: (text) => (text === '' ? text : styleStatus(styles, text)),
              },
              { header: 'MODEL', value: (session) => session.model ?? '', max: 30 },
              {
                header: 'TOKENS IN/OUT',
                value: (session) =>
                  session.input_tokens === null || session.output_tokens === null
                    ? ''
                    : `${session.input_tokens}/${session.output_tokens}`,
                align: 'right',
              },
              { header: 'RUN', value: (session) => session.run_id, max: 36 },
            ],
            styles,
          ),
        );
      }
      write(
        styles.dim(
          `${sessions.length} of ${all.length} session${all.length === 1 ? '' : 's'} (${store} store)\n`,
        ),
      );
      writeNotes(context, notes);
    },
  };
};

/** What `sessions list` shows of a session's last run (null fields when it could not be read). */
function lastRunFields(
  updatedAt: string,
  lastRun: { digest: RunDigest; model: RunModelInfo | undefined } | undefined,
) {
  const digest = lastRun?.digest;
  const activity = digest?.lastActivityAt ?? null;
  const tokensKnown = digest !== undefined && digest.usageResponses > 0;
  const model = lastRun?.model;
  return {
    last_activity_at:
      activity !== null && Date.parse(activity) > Date.parse(updatedAt) ? activity : updatedAt,
    last_run_status: digest?.status ?? null,
    model:
      model === undefined
        ? null
        : [model.provider, model.name].filter((part) => typeof part === 'string').join('/') || null,
    input_tokens: tokensKnown ? digest.inputTokens : null,
    output_tokens: tokensKnown ? digest.outputTokens : null,
  };
}

function episodeText(episode: Episode): string {
  const payload = episode.payload as Record<string, unknown>;
  if (episode.type === 'item') {
    const item = payload.item as Record<string, unknown>;
    if (item.type === 'message') {
      const content = item.content;
      const text =
        typeof content === 'string'
          ? content
          : Array.isArray(content)
            ? content.map((part) => String((part as { text?: unknown }).text ?? '')).join(' ')
            : JSON.stringify(content);
      return `${String(item.role)}: ${text}`;
    }
    if (item.type === 'function_call')
      return `call ${String(item.name)}(${String(item.arguments ?? '')})`;
    if (item.type === 'function_call_output')
      return `output: ${typeof item.output === 'string' ? item.output : JSON.stringify(item.output)}`;
    if (typeof item.encrypted_content === 'string' || item.type === 'reasoning') {
      const summary = Array.isArray(item.summary)
        ? item.summary.map((part) => String((part as { text?: unknown }).text ?? '')).join(' ')
        : '';
      const encrypted =
        typeof item.encrypted_content === 'string'
          ? `encrypted reasoning (${Buffer.byteLength(item.encrypted_content)} bytes)`
          : '';
      return `${String(item.type)}: ${[encrypted, summary].filter((part) => part !== '').join(' · ')}`;
    }
    return String(item.type);
  }
  if (episode.type === 'boundary')
    return `${String(payload.reason)}: ${String(payload.title ?? '')}`;
  if (payload.event === 'import.raw') {
    const data = (payload.data ?? {}) as { reason?: unknown; entry?: { type?: unknown } };
    return `import.raw: ${String(data.reason ?? '')}${typeof data.entry?.type === 'string' ? ` (${data.entry.type})` : ''}`;
  }
  return `${String(payload.event)}${payload.data === undefined ? '' : ` ${JSON.stringify(payload.data)}`}`;
}

/** `sessions show SESSION_ID`. */
/** The session that started this one (an imported sub-agent's parent), as a `parent` field. */
function parentRow(context: unknown): Array<[string, string]> {
  const imported = (context as { import?: { parent_session_id?: unknown } } | undefined)?.import;
  return typeof imported?.parent_session_id === 'string'
    ? [['parent', imported.parent_session_id]]
    : [];
}

export const show: CommandHandler = async (context) => {
  const sessionId = await sessionIdArgument(context);
  const shown = optionalInteger(context.options, 'episodes', { min: 0, max: 100_000 }) ?? 20;
  const { state, location } = await withRunStores(
    context,
    async (stores) => ({ state: await stores.sessions.load(sessionId), location: stores.location }),
    { readOnly: true },
  );
  const store = location.store;
  if (state === null) {
    throw await notFoundWhere(
      new EpisodicError({
        code: 'NOT_FOUND',
        message: `Session ${sessionId} has no snapshot. Check the id ("episodic sessions list")`,
        details: { sessionId },
      }),
      location,
    );
  }
  const log = createEpisodic(snapshotEpisodes(state));
  const episodes = log.read({ fromId: 0 });
  // Bookkeeping (raw imported entries, turn.usage, other meta) is counted, not listed, unless --raw.
  const listed = flag(context.options, 'raw')
    ? episodes
    : episodes.filter((episode) => episode.type !== 'meta' || isParseError(episode));
  const kept = new Set(listed);
  const folded = foldedSummary(episodes.filter((episode) => !kept.has(episode)));
  const newest = shown === 0 ? [] : listed.slice(-shown);
  return {
    receipt: {
      store,
      session_id: state.session_id,
      revision: state.revision ?? 0,
      updated_at: state.updated_at,
      run_id: state.run_id ?? null,
      message_count: state.messages.length,
      episode_count: episodes.length,
      state,
    },
    render: (write) => {
      const styles = createStyles(context.globals.color, context.globals.width);
      write(
        renderFields(
          [
            ['session', state.session_id],
            ['revision', state.revision ?? 0],
            ['updated', localAndRelative(state.updated_at, Date.now())],
            ['last run', state.run_id ?? null],
            ['messages', state.messages.length],
            ['episodes', episodes.length],
            ...parentRow(state.context),
            ['context', JSON.stringify(state.context ?? {})],
          ],
          styles,
        ),
      );
      if (newest.length > 0) {
        write(
          `\n${styles.bold(`The newest ${newest.length} episode${newest.length === 1 ? '' : 's'}:`)}\n`,
        );
        write(
          renderTable(
            newest,
            [
              { header: 'ID', value: (episode) => episode.id, align: 'right' },
              { header: 'TYPE', value: (episode) => episode.type },
              { header: 'SOURCE', value: (episode) => episode.meta.source },
              { header: 'TURN', value: (episode) => episode.meta.turnId, max: 20 },
              { header: 'CONTENT', value: episodeText, max: 70 },
            ],
            styles,
          ),
        );
      }
      if (folded !== null) write(styles.dim(`${folded} (--raw lists them)\n`));
    },
  };
};

function isParseError(episode: Episode): boolean {
  return (episode.payload as { event?: unknown }).event === 'error.parse';
}

/** `12 raw imported entries, 3 turn.usage rows (5,210 in / 188 out tokens), 1 meta record not listed`. */
function foldedSummary(folded: readonly Episode[]): string | null {
  if (folded.length === 0) return null;
  let raw = 0;
  let usage = 0;
  let input = 0;
  let output = 0;
  for (const episode of folded) {
    const payload = episode.payload as { event?: unknown; data?: Record<string, unknown> };
    if (payload.event === 'import.raw') raw++;
    else if (payload.event === 'turn.usage') {
      usage++;
      const count = (value: unknown) => (typeof value === 'number' && value > 0 ? value : 0);
      input += count(payload.data?.inputTokens);
      output += count(payload.data?.outputTokens);
    }
  }
  const meta = folded.length - raw - usage;
  const parts = [
    raw > 0 ? `${raw} raw imported entr${raw === 1 ? 'y' : 'ies'}` : '',
    usage > 0
      ? `${usage} turn.usage row${usage === 1 ? '' : 's'} (${input.toLocaleString('en-US')} in / ${output.toLocaleString('en-US')} out tokens)`
      : '',
    meta > 0 ? `${meta} other meta record${meta === 1 ? '' : 's'}` : '',
  ].filter((part) => part !== '');
  return `${parts.join(', ')} not listed`;
}

/** `sessions redact SESSION_ID`. */
export const redact: CommandHandler = async (context) => {
  const sessionId = await sessionIdArgument(context);
  const options = storedRedactionOptions(context.options, 'mode') as StoredRedactionOptions;
  const { receipt, store } = await withRunStores(context, async (stores) => ({
    receipt: await stores.sessions.redact(sessionId, options).catch(async (error: unknown) => {
      throw await notFoundWhere(error, stores.location);
    }),
    store: stores.location.store,
  }));
  const session = sessionRedactionOutput(receipt);
  return {
    receipt: { store, session },
    render: (write) => {
      if (context.globals.quiet) return;
      const styles = createStyles(context.globals.color, context.globals.width);
      write(
        session.changed
          ? `${styles.green('Redacted')} the snapshot of session ${sessionId} (${session.mode}): ${session.replacements} replacement${session.replacements === 1 ? '' : 's'}, now revision ${session.revision}.\n`
          : `Nothing to redact in the snapshot of session ${sessionId} (${session.mode}).\n`,
      );
    },
  };
};

/** `sessions fold SESSION_ID`. */
export const fold: CommandHandler = async (context) => {
  const sessionId = await sessionIdArgument(context);
  const { receipt, store } = await withRunStores(context, async (stores) => ({
    receipt: await stores.sessions.fold(sessionId).catch(async (error: unknown) => {
      throw await notFoundWhere(error, stores.location);
    }),
    store: stores.location.store,
  }));
  return {
    receipt: { store, session_id: sessionId, revision: receipt.revision, folded: receipt.folded },
    render: (write) => {
      if (context.globals.quiet) return;
      const styles = createStyles(context.globals.color, context.globals.width);
      write(
        receipt.folded > 0
          ? `${styles.green('Folded')} ${receipt.folded} commit${receipt.folded === 1 ? '' : 's'} of session ${sessionId} into a new base at revision ${receipt.revision}.\n`
          : `Session ${sessionId} is up to date: its base is revision ${receipt.revision}, with no commit after it.\n`,
      );
    },
  };
};
