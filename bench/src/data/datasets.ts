import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEpisodic } from '@episodic/core';
import { createFsStore } from '@episodic/store-fs';
import { createSqliteStore } from '@episodic/store-sqlite';
import type { BenchContext } from '../lib/context.js';
import { formatBytes, formatCount } from '../lib/context.js';
import { episodesFrom } from './episodes.js';
import { ledgerEventAt } from './ledger-events.js';
import { ensurePeerThreads } from './peer-threads.js';
import { benchRunId, runHeader, runRecords } from './run-records.js';
import { ensureSessionDataset, SESSION_BACKENDS, SMALL_SESSION_EPISODES } from './sessions.js';
import { ensureUiHome } from './ui-home.js';
import { DATA_VERSION } from './version.js';

export type DatasetName =
  | 'run-files'
  | 'ledger'
  | 'episodes'
  | 'sessions'
  | 'peer-threads'
  | 'ui-home';

/** A run file in the fs store under `runFilesRoot`. */
export interface RunFileInfo {
  runId: string;
  path: string;
  bytes: number;
  records: number;
}

function runFilesRoot(context: BenchContext): string {
  return join(context.paths.data, `run-files-v${DATA_VERSION}`);
}

function markerOf(context: BenchContext, name: string): string {
  return join(context.paths.data, `${name}.ok.json`);
}

/**
 * A run of about `targetBytes` (1 KB records) written through the fs store (durability `none`,
 * 1,000 records per append), so the file is exactly what the product writes.
 */
async function ensureRunFile(context: BenchContext, targetBytes: number): Promise<RunFileInfo> {
  const name = `run-file-${targetBytes}-v${DATA_VERSION}`;
  const marker = markerOf(context, name);
  if (existsSync(marker)) {
    const info = JSON.parse(readFileSync(marker, 'utf8')) as RunFileInfo;
    if (existsSync(info.path) && statSync(info.path).size === info.bytes) return info;
  }
  const runId = benchRunId(1, targetBytes);
  const store = createFsStore({ root: runFilesRoot(context), durability: 'none' });
  context.log(`generating a ${formatBytes(targetBytes)} run file (fs store, 1 KB records)…`);
  try {
    const existing = await store.locateRun(runId);
    if (existing !== null) await store.runs.delete(runId);
    await store.runs.append(runId, [runHeader(runId)]);
    let written = 0;
    let records = 1;
    while (written < targetBytes) {
      const batch = runRecords(runId, records - 1, 1000);
      await store.runs.append(runId, batch);
      records += batch.length;
      const path = (await store.locateRun(runId)) as string;
      written = statSync(path).size;
    }
    const path = (await store.locateRun(runId)) as string;
    const info: RunFileInfo = { runId, path, bytes: statSync(path).size, records };
    writeFileSync(marker, JSON.stringify(info));
    return info;
  } finally {
    await store.close();
  }
}

export interface RunFiles {
  root: string;
  large: RunFileInfo;
  small: RunFileInfo;
}

export async function ensureRunFiles(context: BenchContext): Promise<RunFiles> {
  const large = await ensureRunFile(context, context.sizes.runFileBytes);
  const small = await ensureRunFile(context, context.sizes.smallRunFileBytes);
  return { root: runFilesRoot(context), large, small };
}

export interface LedgerDataset {
  path: string;
  rows: number;
}

function ledgerDatasetPath(context: BenchContext): string {
  return join(context.paths.data, `ledger-${context.sizes.ledgerRows}-v${DATA_VERSION}.db`);
}

/**
 * The ledger data set, appended through the product (`appendBatch` of 1,000 events: validation,
 * canonical JSON, content guards, ULIDs and session positions included), then checkpointed so
 * the file holds everything and no `-wal` is left.
 */
export async function ensureLedger(context: BenchContext): Promise<LedgerDataset> {
  const rows = context.sizes.ledgerRows;
  const path = ledgerDatasetPath(context);
  if (existsSync(path)) return { path, rows };
  const temporary = `${path}.tmp`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${temporary}${suffix}`, { force: true });
  context.log(`generating a ${formatCount(rows)}-event ledger through the product…`);
  const store = createSqliteStore({ filename: temporary });
  const started = Date.now();
  const batch = 1000;
  for (let first = 0; first < rows; first += batch) {
    const events = [];
    for (let index = first; index < Math.min(rows, first + batch); index++)
      events.push(ledgerEventAt(index, rows));
    await store.ledger.appendBatch(events);
    if ((first / batch) % 100 === 99) {
      const rate = (first + batch) / ((Date.now() - started) / 1000);
      context.log(`  ${formatCount(first + batch)} events (${formatCount(rate)}/s)`);
    }
  }
  store.database.pragma('wal_checkpoint(TRUNCATE)');
  await store.close();
  renameSync(temporary, path);
  return { path, rows };
}

export interface EpisodesDataset {
  path: string;
  episodes: number;
}

/** The episode log data set as JSONL, appended through the product and written by `toJSONL()`. */
export async function ensureEpisodes(context: BenchContext): Promise<EpisodesDataset> {
  const episodes = context.sizes.episodes;
  const path = join(context.paths.data, `episodes-${episodes}-v${DATA_VERSION}.jsonl`);
  if (existsSync(path)) return { path, episodes };
  context.log(`generating a ${formatCount(episodes)}-episode log through the product…`);
  let clock = Date.UTC(2026, 1, 3, 12);
  const tick = () => {
    clock += 37;
    return new Date(clock);
  };
  const log = createEpisodic(undefined, { now: tick });
  const chunk = 10_000;
  for (let first = 0; first < episodes; first += chunk) {
    for (const episode of episodesFrom(first, Math.min(chunk, episodes - first)))
      log.append(episode);
  }
  writeFileSync(`${path}.tmp`, log.toJSONL());
  renameSync(`${path}.tmp`, path);
  return { path, episodes };
}

export async function ensureDataset(context: BenchContext, name: DatasetName): Promise<void> {
  if (name === 'run-files') await ensureRunFiles(context);
  else if (name === 'ledger') await ensureLedger(context);
  else if (name === 'episodes') await ensureEpisodes(context);
  else if (name === 'sessions') {
    for (const backend of SESSION_BACKENDS) {
      for (const episodes of [SMALL_SESSION_EPISODES, context.sizes.sessionEpisodes]) {
        try {
          await ensureSessionDataset(context, backend, episodes);
        } catch (error) {
          // Recorded: the session rows report it.
          context.log(
            `the ${backend} session of ${episodes} episodes failed: ${(error as Error).message}`,
          );
        }
      }
    }
  } else if (name === 'ui-home') await ensureUiHome(context);
  else await ensurePeerThreads(context);
}
