import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { EpisodicError } from '@episodic/core';
import {
  type DatabaseCheck,
  type EpisodicLocation,
  HOME_CONFIG_FILE,
  inspectDatabase,
  openEpisodicStores,
  resolveEpisodicLocation,
} from '@episodic/home';
import type { CommandHandler } from '../command-spec.js';
import { checkUnchainedPrefixes, unchainedPrefixLine } from '../doctor/chain-doctor.js';
import { checkHomeLayout } from '../doctor/home-layout.js';
import { createQuarantine } from '../doctor/quarantine.js';
import { checkRunFile, type RunFileCheck, repairRunFile } from '../doctor/run-file-doctor.js';
import { checkSnapshots, staleRunTempFiles } from '../doctor/snapshot-doctor.js';
import { EXIT_FAILURE } from '../exit-codes.js';
import { flag } from '../option-values.js';
import { createStyles, sanitizeForTerminal } from '../output.js';
import { createProgress } from '../progress.js';
import { listRunFiles } from '../run-file-follower.js';
import { storeOptions } from '../store-options.js';
import { locate } from '../stores.js';

/** One problem as the receipt lists it. */
interface Problem {
  area: 'run_file' | 'snapshot' | 'file' | 'database';
  /** A path relative to the home, or a database subject (`event <id>`, `run <id>`). */
  path: string;
  line?: number;
  byte_offset?: number;
  message: string;
  excerpt?: string;
  fixable: boolean;
  fixed: boolean;
  action?: string;
}

/**
 * Where the stores are. A home config that cannot be read (a FIFO, a directory, not JSON) stops
 * every other command with `CORRUPT_DATA`; doctor reports it instead (`configProblem`) and checks
 * the rest of the home as a SQLite home, the default.
 */
function locateForDoctor(context: Parameters<CommandHandler>[0]): {
  location: EpisodicLocation;
  configProblem?: string;
} {
  try {
    return { location: locate(context) };
  } catch (error) {
    if (!EpisodicError.hasCode(error, 'CORRUPT_DATA')) throw error;
    const location = resolveEpisodicLocation({ ...storeOptions(context), store: 'sqlite' });
    const config = join(location.home, HOME_CONFIG_FILE);
    if ((error as EpisodicError).details?.path !== config) throw error;
    return { location, configProblem: (error as EpisodicError).message };
  }
}

/** `doctor [--fix]`. */
export const doctor: CommandHandler = async (context) => {
  const fix = flag(context.options, 'fix');
  const { location, configProblem } = locateForDoctor(context);
  const { home } = location;
  const styles = createStyles(context.globals.color, context.globals.width);
  const problems: Problem[] = [];
  const quarantine = createQuarantine(home, new Date());
  const name = (path: string) => {
    const inside = relative(home, path);
    return inside.startsWith('..') ? path : inside;
  };
  const postgres = location.databaseKind === 'postgres';
  const sqliteFiles =
    postgres || location.database === ':memory:'
      ? []
      : ['', '-wal', '-shm', '-journal'].map((suffix) => `${location.database}${suffix}`);

  // The shape of the home first: what is not where the stores expect it is reported, and is
  // never opened (a FIFO would block), walked through a link, or written through.
  const layout = checkHomeLayout(home, sqliteFiles);
  const layoutProblems = new Set(layout.problems.map((problem) => problem.path));
  const quarantineRefusal = () => quarantine.refusal;

  // Run files.
  const files = layout.sessions ? listRunFiles(home) : [];
  const progress = createProgress(context, fix ? 'doctor --fix: run files' : 'doctor: run files');
  let records = 0;
  const checks: RunFileCheck[] = [];
  for (const [index, file] of files.entries()) {
    progress.update(index, files.length);
    const check = checkRunFile(home, file.path);
    records += check.records;
    checks.push(check);
  }
  progress.update(files.length, files.length);
  progress.finish();
  for (const check of checks) {
    if (check.problems.length === 0) continue;
    let action: string | undefined;
    let repaired = false;
    const refused = fix ? quarantineRefusal() : null;
    if (refused !== null && check.problems.some((problem) => problem.fixable)) {
      action = `not repaired: ${refused}`;
    } else if (fix && check.problems.some((problem) => problem.fixable)) {
      const repair = repairRunFile(check, quarantine);
      if (repair.outcome === 'changed') {
        action =
          'not repaired: the file changed while doctor read it (a writer is active); run doctor --fix again when it is idle';
      } else if (repair.outcome === 'quarantined') {
        action = 'moved to the quarantine (it held no readable record)';
        repaired = true;
      } else {
        action = `rewritten: ${repair.kept} records kept, ${repair.quarantined} damaged line${repair.quarantined === 1 ? '' : 's'} quarantined`;
        repaired = true;
      }
    }
    for (const problem of check.problems) {
      problems.push({
        area: 'run_file',
        path: name(check.path),
        ...(problem.line === undefined ? {} : { line: problem.line }),
        ...(problem.byteOffset === undefined ? {} : { byte_offset: problem.byteOffset }),
        message: problem.message,
        ...(problem.excerpt === undefined ? {} : { excerpt: problem.excerpt }),
        fixable: problem.fixable,
        fixed: repaired && problem.fixable,
        ...(action === undefined ? {} : { action }),
      });
    }
  }

  // Snapshots, tool-output cache and temp files.
  const snapshotCheck = checkSnapshots(home, layout);
  const configPath = join(home, HOME_CONFIG_FILE);
  const fileProblems = [
    ...layout.problems,
    // A config the layout check did not already report (a regular file that is not a config).
    ...(configProblem === undefined || layoutProblems.has(configPath)
      ? []
      : [{ area: 'file' as const, path: configPath, message: configProblem, fixable: false }]),
    ...snapshotCheck.problems,
    ...staleRunTempFiles([...new Set(files.map((file) => dirname(file.path)))]),
  ];
  for (const problem of fileProblems) {
    let fixed = false;
    let action: string | undefined;
    if (fix && problem.fixable) {
      const refused = quarantineRefusal();
      if (refused === null) {
        quarantine.moveFile(problem.path, problem.message);
        fixed = true;
        action = 'moved to the quarantine';
      } else {
        action = `not repaired: ${refused}`;
      }
    }
    problems.push({
      area: problem.area,
      path: name(problem.path),
      message: problem.message,
      fixable: problem.fixable,
      fixed,
      ...(action === undefined ? {} : { action }),
    });
  }

  // The database: opened only when it exists (doctor never creates one), with runs read from it.
  // A PostgreSQL database is checked through its store (sessions, runs, events counted).
  let database: DatabaseCheck | null = null;
  const databaseExists =
    postgres || (location.database !== ':memory:' && existsSync(location.database));
  // A database file that is not a regular file is reported above and never opened.
  const databaseUsable = !sqliteFiles.some((path) => layoutProblems.has(path));
  if (databaseExists && databaseUsable) {
    const databaseProgress = createProgress(context, 'doctor: database runs');
    try {
      const stores = await openEpisodicStores({
        ...storeOptions(context),
        store: 'sqlite',
        ...(postgres ? { readOnly: true } : {}),
      });
      try {
        const onRun = (done: number, total: number) => databaseProgress.update(done, total);
        database = await inspectDatabase(stores, onRun);
      } finally {
        databaseProgress.finish();
        await stores.close();
      }
    } catch (error) {
      problems.push({
        area: 'database',
        path: location.database,
        message: `the database cannot be opened or read: ${EpisodicError.isInstance(error) || error instanceof Error ? error.message : String(error)}`,
        fixable: false,
        fixed: false,
      });
    }
    for (const problem of database?.problems ?? []) {
      problems.push({
        area: 'database',
        path: problem.subject,
        ...(problem.line === undefined ? {} : { line: problem.line }),
        message: problem.message,
        fixable: false,
        fixed: false,
      });
    }
  }

  // The chain, on a home that chains: streams begun before chaining was turned on (information).
  const unchained = await checkUnchainedPrefixes(context, home);

  const remaining = problems.filter((problem) => !problem.fixed);
  const healthy = remaining.length === 0;
  const receipt: Record<string, unknown> = {
    ...(healthy
      ? {}
      : {
          ok: false,
          error: `${remaining.length} problem${remaining.length === 1 ? '' : 's'} found${fix ? ' that --fix could not repair' : ''}.${!fix && remaining.some((problem) => problem.fixable) ? ' Run "episodic doctor --fix" to repair the fixable ones.' : ''}`,
          code: 'CORRUPT_DATA',
        }),
    home,
    database: location.database,
    store: location.store,
    fix,
    healthy,
    checked: {
      run_files: files.length,
      records,
      snapshots: snapshotCheck.snapshots,
      database:
        database === null
          ? null
          : {
              integrity: database.integrity,
              events: database.events,
              sessions: database.sessions,
              runs: database.runs,
            },
    },
    problem_count: problems.length,
    fixed_count: problems.length - remaining.length,
    problems,
    quarantine: quarantine.path,
    chain: unchained === null ? null : { unchained },
  };
  return {
    receipt,
    exitCode: healthy ? 0 : EXIT_FAILURE,
    render: (write) => {
      write(
        `${styles.bold('Checked')} ${files.length} run file${files.length === 1 ? '' : 's'} (${records} records), ${snapshotCheck.snapshots} snapshot${snapshotCheck.snapshots === 1 ? '' : 's'}, ${
          database === null
            ? databaseExists
              ? 'the database (unreadable)'
              : 'no database'
            : `the database (${database.events} events, ${database.runs} runs, ${database.sessions} sessions, integrity ${database.integrity})`
        } under ${sanitizeForTerminal(home)}\n`,
      );
      for (const problem of problems) {
        const where = [
          problem.path,
          problem.line === undefined ? undefined : `line ${problem.line}`,
          problem.byte_offset === undefined ? undefined : `byte ${problem.byte_offset}`,
        ]
          .filter((part) => part !== undefined)
          .join(' ');
        const mark = problem.fixed
          ? styles.green('fixed')
          : problem.fixable
            ? styles.yellow('fixable')
            : styles.red('problem');
        write(
          `${mark} ${sanitizeForTerminal(where)}: ${sanitizeForTerminal(problem.message)}${problem.excerpt === undefined ? '' : ` ${styles.dim(sanitizeForTerminal(problem.excerpt))}`}\n`,
        );
        if (problem.action !== undefined)
          write(`        ${styles.dim(sanitizeForTerminal(problem.action))}\n`);
      }
      for (const prefixes of unchained ?? [])
        write(`${styles.dim('info')} ${unchainedPrefixLine(prefixes)}\n`);
      if (quarantine.path !== null)
        write(
          `Quarantined fragments and files are in ${sanitizeForTerminal(quarantine.path)} (see manifest.json).\n`,
        );
      if (healthy) {
        write(
          `${styles.green('Healthy.')}${problems.length > 0 ? ` ${problems.length} problem${problems.length === 1 ? ' was' : 's were'} repaired.` : ''}\n`,
        );
      } else {
        write(
          `${styles.red(`${remaining.length} problem${remaining.length === 1 ? '' : 's'} remain${remaining.length === 1 ? 's' : ''}.`)}${!fix && remaining.some((problem) => problem.fixable) ? ' Run "episodic doctor --fix" to repair the fixable ones (stop writers first).' : ''}\n`,
        );
      }
    },
  };
};
