// The store packages own their tables: no source file of the CLI, the UI, the MCP server or this
// package runs SQL (each store inspects itself: scope summaries, doctor's checks, detection,
// migration reads). A file that does fails here, named with the line.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const packages = join(import.meta.dirname, '..', '..');
const CONSUMERS = ['cli/src', 'ui/src', 'mcp/src', 'home/src'];

/** SQL statements (upper-case keywords, as every statement of this repository is written). */
const SQL = [
  /\bSELECT\s+(?:[\w*(]|DISTINCT\b)[^\n]*?\bFROM\b/,
  /\bSELECT\s+EXISTS\b/,
  /\bINSERT\s+(?:OR\s+\w+\s+)?INTO\b/,
  /\bUPDATE\s+[\w."]+\s+SET\b/,
  /\bDELETE\s+FROM\b/,
  /\bPRAGMA\s+\w/,
  /\bCREATE\s+(?:TABLE|INDEX|VIEW|TRIGGER)\b/,
  /\bWITH\s+RECURSIVE\b/,
];
/** better-sqlite3's calls that run SQL text. */
const SQLITE_CALLS = /\.(?:prepare|pragma)\(/;

/** The code of a file without its comments (SQL in a comment is prose, not a statement). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');
}

/** Every line of `text` that runs or spells SQL, as `line: text`. */
function sqlLines(text: string): string[] {
  const found: string[] = [];
  for (const [index, line] of withoutComments(text).split('\n').entries()) {
    if (SQLITE_CALLS.test(line) || SQL.some((pattern) => pattern.test(line)))
      found.push(`${index + 1}: ${line.trim()}`);
  }
  return found;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter(
      (entry) =>
        entry.isFile() &&
        /\.tsx?$/.test(entry.name) &&
        !/\.test\.tsx?$/.test(entry.name) &&
        !entry.parentPath.includes('__fixtures__'),
    )
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('no SQL outside the store packages', () => {
  it('finds SQL where it is (the detector itself)', () => {
    expect(
      sqlLines(
        "db.prepare('SELECT scope, count(*) AS events FROM episodic_events GROUP BY scope').all();",
      ),
    ).toHaveLength(1);
    expect(
      sqlLines('await pool.query(`SELECT session_id FROM "episodic".episodic_sessions`);'),
    ).toHaveLength(1);
    expect(sqlLines("database.pragma('integrity_check');")).toHaveLength(1);
    expect(sqlLines("const rows = 'PRAGMA integrity_check';")).toHaveLength(1);
    // Not SQL: a ledger query, a regular expression, prose in a comment.
    expect(sqlLines('await ledger.query({ scope, limit: 1 });')).toEqual([]);
    expect(sqlLines('const match = /x/.exec(text);')).toEqual([]);
    expect(sqlLines('// SELECT scope FROM episodic_events is what the store runs')).toEqual([]);
  });

  it.each(CONSUMERS)('%s runs no SQL (each store package inspects itself)', (folder) => {
    const offenders: string[] = [];
    for (const file of sourceFiles(join(packages, folder))) {
      for (const line of sqlLines(readFileSync(file, 'utf8')))
        offenders.push(`${relative(packages, file)}:${line}`);
    }
    expect(offenders).toEqual([]);
  });
});
