import { EpisodicError, type Metadata, type RunRecord } from '@episodic/core';
import type { LedgerRow } from '@episodic/core/adapter';
import { jsonEqual, ledgerRowFromSql, safeJsonParse } from '@episodic/core/adapter';
import type { EpisodicStores } from '@episodic/home';
import type { PostgresStore } from '@episodic/store-postgres';
import {
  createSqliteLedgerAdapter,
  readSqliteArtifactRows,
  readSqliteEpisodeMetadataRows,
  readSqliteSessionHeads,
} from '@episodic/store-sqlite';
import type { CommandHandler } from '../command-spec.js';
import { optionalString } from '../option-values.js';
import { createStyles, sanitizeForTerminal } from '../output.js';
import { createProgress } from '../progress.js';
import { withStores } from '../stores.js';
import { UsageError } from '../usage-error.js';

const CHUNK = 500;

interface Counts {
  sessions: number;
  runs: number;
  records: number;
  events: number;
  artifacts: number;
  metadata: number;
}

const zero = (): Counts => ({
  sessions: 0,
  runs: 0,
  records: 0,
  events: 0,
  artifacts: 0,
  metadata: 0,
});

function conflict(what: string): EpisodicError {
  return new EpisodicError({
    code: 'CONFLICT',
    message: `${what}. Migrate into another schema (?schema=NAME), or remove the conflicting object; objects copied before it stay, and running the migration again skips them.`,
    details: { conflict: what },
  });
}

async function copySessions(
  source: EpisodicStores,
  target: PostgresStore,
  copied: Counts,
  skipped: Counts,
) {
  for (const summary of await source.sessions.list()) {
    const state = await source.sessions.load(summary.sessionId);
    if (state === null) continue;
    const stored = await target.sessions.load(summary.sessionId);
    if (stored === null) {
      await target.sessions.save(state, { expectedRevision: null });
      copied.sessions++;
    } else if (jsonEqual(stored, state)) skipped.sessions++;
    else throw conflict(`Session ${summary.sessionId} exists in PostgreSQL with other content`);
  }
}

async function copyRuns(
  source: EpisodicStores,
  target: PostgresStore,
  copied: Counts,
  skipped: Counts,
  warnings: string[],
  progress: (done: number, total: number) => void,
): Promise<number> {
  const listed = await source.runs.list();
  for (const error of listed.errors) warnings.push(`skipped ${error.location}: ${error.message}`);
  let damaged = 0;
  for (const [index, summary] of listed.runs.entries()) {
    progress(index, listed.runs.length);
    const run = await source.runs.read(summary.runId);
    if (run.errors.length > 0) {
      damaged += run.errors.length;
      warnings.push(
        `run ${summary.runId}: ${run.errors.length} damaged line${run.errors.length === 1 ? '' : 's'} left out (run "episodic doctor")`,
      );
    }
    const stored = await target.runs.read(summary.runId).catch((error: unknown) => {
      if (EpisodicError.hasCode(error, 'NOT_FOUND')) return null;
      throw error;
    });
    const have = stored?.records ?? [];
    const prefix =
      (stored?.errors.length ?? 0) === 0 &&
      have.length <= run.records.length &&
      have.every((record, position) => jsonEqual(record, run.records[position]));
    if (!prefix) throw conflict(`Run ${summary.runId} exists in PostgreSQL with other records`);
    if (have.length === run.records.length) {
      skipped.runs++;
      skipped.records += have.length;
      continue;
    }
    skipped.records += have.length;
    for (let start = have.length; start < run.records.length; start += CHUNK) {
      const chunk: RunRecord[] = run.records.slice(start, start + CHUNK);
      // Compare-and-append: a writer that appends to the run meanwhile makes this a CONFLICT.
      await target.runs.append(summary.runId, chunk, { expectedPosition: start });
      copied.records += chunk.length;
    }
    copied.runs++;
  }
  return damaged;
}

async function copyLedger(
  source: EpisodicStores,
  target: PostgresStore,
  copied: Counts,
  skipped: Counts,
) {
  const database = source.sqlite?.database;
  if (database === undefined) return;
  const adapter = createSqliteLedgerAdapter(database);
  // Every row in (ts_ms, insertion) order, so PostgreSQL's insertion order matches SQLite's.
  let after: { tsMs: number; sequence: number } | undefined;
  for (;;) {
    // The adapter's rows as it selected them (SQL columns): decoded as createLedger would.
    const selected = await adapter.query({
      scope: null,
      limit: CHUNK,
      includePayload: true,
      ...(after === undefined ? {} : { after }),
    });
    const rows = selected.map(ledgerRowFromSql);
    if (rows.length === 0) break;
    const receipt = await target.importLedgerRows(rows);
    copied.events += receipt.written;
    skipped.events += receipt.skipped;
    const last = rows[rows.length - 1] as LedgerRow;
    after = { tsMs: last.ts_ms, sequence: last.sequence };
    if (rows.length < CHUNK) break;
  }
  // Heads too: a session whose last events were collected keeps counting where it was.
  await target.importSessionHeads(readSqliteSessionHeads(database));
}

function parsed(text: string, what: string): unknown {
  const result = safeJsonParse(text);
  if (!result.success) {
    throw new EpisodicError({
      code: 'CORRUPT_DATA',
      message: `The stored ${what} is unreadable (${result.error}); nothing more was migrated. Run "episodic doctor".`,
      details: { what },
    });
  }
  return result.value;
}

async function copyArtifacts(
  source: EpisodicStores,
  target: PostgresStore,
  clock: { current: Date },
  copied: Counts,
  skipped: Counts,
) {
  const database = source.sqlite?.database;
  if (database === undefined) return;
  for (const row of readSqliteArtifactRows(database)) {
    const content = parsed(row.content_json, `content of artifact ${row.key}`);
    const episodes = row.episodes;
    const stored = await target.artifacts.get(row.key);
    if (stored !== null) {
      const same =
        stored.kind === row.kind &&
        jsonEqual(stored.content, content) &&
        jsonEqual(stored.episodes, episodes) &&
        stored.createdAt === row.created_at &&
        stored.updatedAt === row.updated_at;
      if (!same) throw conflict(`Artifact ${row.key} exists in PostgreSQL with other content`);
      skipped.artifacts++;
      continue;
    }
    // The target's clock is set to the stored times, so createdAt and updatedAt are kept.
    clock.current = new Date(row.created_at);
    await target.artifacts.upsert({
      key: row.key,
      kind: row.kind,
      content: content as never,
      episodes,
    });
    if (row.updated_at !== row.created_at) {
      clock.current = new Date(row.updated_at);
      await target.artifacts.upsert({
        key: row.key,
        kind: row.kind,
        content: content as never,
        episodes: [],
      });
    }
    copied.artifacts++;
  }
  for (const row of readSqliteEpisodeMetadataRows(database)) {
    const value = parsed(row.metadata_json, `metadata of ${row.episode_ref}`) as Metadata;
    const stored = await target.artifacts.getEpisodeMetadata(row.episode_ref);
    if (stored === null) {
      await target.artifacts.setEpisodeMetadata(row.episode_ref, value);
      copied.metadata++;
    } else if (jsonEqual(stored, value)) skipped.metadata++;
    else throw conflict(`Episode ${row.episode_ref} has other metadata in PostgreSQL`);
  }
}

/**
 * `migrate --to URL`: copies this home (its SQLite database: ledger rows as stored, session heads,
 * artifacts and episode metadata; runs and sessions from the database or from run files) into a
 * PostgreSQL schema. Objects already there with the same content are skipped, so an interrupted
 * migration can be run again; other content under the same id stops it with CONFLICT.
 */
export const migrate: CommandHandler = async (context) => {
  const { globals, options } = context;
  const to = optionalString(options, 'to') ?? context.env.EPISODIC_MIGRATE_TO;
  const { isPostgresUrl, describeConnection, schemaOfUrl, createPostgresStore } = await import(
    '@episodic/store-postgres'
  );
  if (to === undefined || to === '') {
    throw new UsageError(
      'Give the PostgreSQL database to migrate into: --to postgres://USER@HOST/DB (or $EPISODIC_MIGRATE_TO).',
    );
  }
  if (!isPostgresUrl(to)) {
    throw new UsageError(
      `--to must be a postgres:// or postgresql:// URL (got ${describeConnection(to)}).`,
    );
  }
  const { url, schema } = schemaOfUrl(to);
  const clock = { current: new Date() };
  const copied = zero();
  const skipped = zero();
  const warnings: string[] = [];
  let damaged = 0;
  const progress = createProgress(context, 'migrate');
  const result = await withStores(context, async (source) => {
    if (source.sqlite === undefined) {
      throw new UsageError(
        'migrate copies a home whose database is SQLite into PostgreSQL; --db / $EPISODIC_DB already names a PostgreSQL server.',
      );
    }
    const target = await createPostgresStore({
      connectionString: url,
      ...(schema === undefined ? {} : { schema }),
      artifacts: { now: () => clock.current },
    });
    try {
      await copySessions(source, target, copied, skipped);
      damaged = await copyRuns(source, target, copied, skipped, warnings, (done, total) =>
        progress.update(done, total, 'runs'),
      );
      await copyLedger(source, target, copied, skipped);
      await copyArtifacts(source, target, clock, copied, skipped);
      const { home, database, store } = source.location;
      return { server: target.server, schema: target.schema, from: { home, database, store } };
    } finally {
      await target.close();
    }
  }).finally(() => progress.finish());
  const receipt = {
    from: result.from,
    to: result.server,
    schema: result.schema,
    copied,
    skipped,
    skipped_damaged_lines: damaged,
    warnings,
  };
  return {
    receipt,
    render: (write) => {
      if (globals.quiet) return;
      const styles = createStyles(globals.color);
      for (const warning of warnings)
        write(`${styles.yellow('warning:')} ${sanitizeForTerminal(warning)}\n`);
      write(
        `${styles.green('Migrated')} ${copied.sessions} sessions, ${copied.runs} runs (${copied.records} records), ${copied.events} ledger events, ${copied.artifacts} artifacts and ${copied.metadata} episode metadata to ${sanitizeForTerminal(result.server)} (schema ${result.schema})${skipped.sessions + skipped.runs + skipped.events + skipped.artifacts + skipped.metadata > 0 ? '; objects already there were skipped' : ''}.\n`,
      );
    },
  };
};
