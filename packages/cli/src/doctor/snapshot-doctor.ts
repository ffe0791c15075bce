import * as fs from 'node:fs';
import { join } from 'node:path';
import { EpisodicError } from '@episodic/core';
import { decodeSessionBase, decodeSessionDeltas, safeJsonParse } from '@episodic/core/adapter';
import { sessionStateSchema } from '@episodic/core/schemas';
import type { FileProblem } from './file-problem.js';
import { entryAt, type HomeLayout, notARegularFile } from './home-layout.js';

const SNAPSHOT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.json$/;
const DELTAS = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.deltas\.jsonl$/;
const TEMP = /^\..+\.(\d+)\.[0-9a-f]+\.tmp$/;
const DOCTOR_TEMP = /^\..+\.doctor-(\d+)-[0-9a-f]+\.tmp$/;

function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A temp file left by a writer that died between writing and renaming it (never acknowledged). */
export function staleTempFile(name: string): boolean {
  const match = TEMP.exec(name) ?? DOCTOR_TEMP.exec(name);
  return match !== null && !isAlive(Number(match[1]));
}

const READ_FLAGS =
  fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * The text of a file doctor found to be a regular file; opened without following a link and
 * without blocking, and refused (ESPECIAL) if it was replaced by something else meanwhile.
 */
function readText(path: string): string {
  const fd = fs.openSync(path, READ_FLAGS);
  try {
    if (!fs.fstatSync(fd).isFile()) {
      throw Object.assign(new Error('not a regular file'), { code: 'ESPECIAL' });
    }
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

function readSnapshot(path: string, sessionId: string): string | null {
  let text: string;
  try {
    text = readText(path);
  } catch (error) {
    return `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return 'the snapshot is empty';
  const parsed = safeJsonParse(text);
  if (!parsed.success) return `the snapshot is not valid JSON (${parsed.error})`;
  const checked = sessionStateSchema.safeParse(parsed.value);
  if (!checked.success) {
    const [issue] = checked.error.issues;
    return `the file is not a session snapshot (${issue?.path.join('.') || 'root'}: ${issue?.message})`;
  }
  if (checked.data.session_id.toLowerCase() !== sessionId) {
    return `the snapshot holds session ${checked.data.session_id}, not ${sessionId}`;
  }
  return null;
}

/**
 * What is wrong with a session's deltas file (one line per commit since the base), or null: a
 * file without its base is an orphan; damage before the last line is a lost commit. A last line
 * cut short is not a problem: it is a commit that was never acknowledged, and the next commit cuts
 * it off.
 */
function readDeltas(path: string, basePath: string, sessionId: string): FileProblem | null {
  const base = entryAt(basePath);
  // A base that is not a regular file is reported on its own; its commits cannot be checked.
  if (base.kind !== 'missing' && base.kind !== 'file') return null;
  if (base.kind === 'missing') {
    return {
      area: 'snapshot',
      path,
      message: 'commits of a session whose base snapshot is missing: no store reads them',
      fixable: true,
    };
  }
  try {
    const decoded = decodeSessionBase(sessionId, readText(basePath).split('\n'));
    const lines = readText(path).split('\n');
    decodeSessionDeltas(sessionId, lines, decoded.head.revision ?? 0);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESPECIAL') return null;
    if (code !== undefined && !EpisodicError.isInstance(error)) {
      return {
        area: 'snapshot',
        path,
        message: `the session's commits cannot be read (${code})`,
        fixable: false,
      };
    }
    if (!EpisodicError.hasCode(error, 'CORRUPT_DATA')) throw error;
    return {
      area: 'snapshot',
      path,
      message: `the session's commits cannot be read: ${(error as Error).message}`,
      fixable: false,
    };
  }
  return null;
}

function entries(directory: string): fs.Dirent[] {
  try {
    return fs.readdirSync(directory, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * Checks `<home>/sessions/state/` (session snapshots) and `<home>/cache/tool-output/`: unreadable
 * snapshots and temp files of dead writers are fixable (moved to the quarantine); files that are
 * neither are reported. Returns the problems and how many snapshots were read.
 */
export function checkSnapshots(
  home: string,
  layout: Pick<HomeLayout, 'state' | 'toolOutput'>,
): { snapshots: number; problems: FileProblem[] } {
  const problems: FileProblem[] = [];
  let snapshots = 0;
  const state = join(home, 'sessions', 'state');
  for (const entry of layout.state ? entries(state) : []) {
    const path = join(state, entry.name);
    // Nothing but a regular file is opened; a snapshot that is a link is quarantined below.
    if (!entry.isFile() && !(entry.isSymbolicLink() && SNAPSHOT.test(entry.name))) {
      const special = notARegularFile(home, path, entryAt(path));
      if (special !== null) {
        problems.push({
          area: SNAPSHOT.test(entry.name) || DELTAS.test(entry.name) ? 'snapshot' : 'file',
          path,
          message: special,
          fixable: false,
        });
        continue;
      }
    }
    if (entry.name.endsWith('.lock')) continue;
    if (entry.name.startsWith('.') && entry.name.endsWith('.tmp')) {
      if (staleTempFile(entry.name)) {
        problems.push({
          area: 'file',
          path,
          message: 'a temp file left by a snapshot writer that died before renaming it',
          fixable: true,
        });
      }
      continue;
    }
    const deltas = DELTAS.exec(entry.name);
    if (deltas !== null) {
      const sessionId = deltas[1] as string;
      const problem = readDeltas(path, join(state, `${sessionId}.json`), sessionId);
      if (problem !== null) problems.push(problem);
      continue;
    }
    if (!SNAPSHOT.test(entry.name)) {
      problems.push({
        area: 'file',
        path,
        message:
          'not a session snapshot (<uuid>.json) or its commits (<uuid>.deltas.jsonl): no store reads it',
        fixable: false,
      });
      continue;
    }
    if (entry.isSymbolicLink()) {
      problems.push({
        area: 'snapshot',
        path,
        message: 'it is a symbolic link, which the store refuses to follow',
        fixable: true,
      });
      continue;
    }
    snapshots++;
    const problem = readSnapshot(path, entry.name.slice(0, -'.json'.length));
    if (problem !== null)
      problems.push({ area: 'snapshot', path, message: problem, fixable: true });
  }
  const toolOutputs = join(home, 'cache', 'tool-output');
  for (const entry of layout.toolOutput ? entries(toolOutputs) : []) {
    if (!entry.isFile() && !entry.name.startsWith('.')) {
      const path = join(toolOutputs, entry.name);
      const special = notARegularFile(home, path, entryAt(path));
      if (special !== null) problems.push({ area: 'file', path, message: special, fixable: false });
      continue;
    }
    if (entry.name.startsWith('.') && entry.name.endsWith('.tmp') && staleTempFile(entry.name)) {
      problems.push({
        area: 'file',
        path: join(toolOutputs, entry.name),
        message: 'a temp file left by a tool-output writer that died before renaming it',
        fixable: true,
      });
    }
  }
  return { snapshots, problems };
}

/** Temp files of dead doctor runs in the run-file directories. */
export function staleRunTempFiles(directories: readonly string[]): FileProblem[] {
  const problems: FileProblem[] = [];
  for (const directory of directories) {
    for (const entry of entries(directory)) {
      if (entry.name.startsWith('.') && entry.name.endsWith('.tmp') && staleTempFile(entry.name)) {
        problems.push({
          area: 'file',
          path: join(directory, entry.name),
          message: 'a temp file left by a repair that died',
          fixable: true,
        });
      }
    }
  }
  return problems;
}
