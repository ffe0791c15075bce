// The CLI cold-start probe (research C2): a bundled ESM script that imports zod (inlined by the
// bundler) and better-sqlite3 (external, native) the way a CLI must, then does the least work a
// command can: print a version, or open the ledger and run one query.
import Database from 'better-sqlite3';
import { z } from 'zod';

const queryArguments = z.object({
  database: z.string().min(1),
  scope: z.string().min(1),
  session: z.string().min(1),
  limit: z.number().int().min(1).max(500),
});

const [command, ...rest] = process.argv.slice(2);
if (command === '--version') {
  process.stdout.write('0.0.0\n');
} else if (command === 'query') {
  const [database, scope, session] = rest;
  const parsed = queryArguments.parse({ database, scope, session, limit: 50 });
  const connection = new Database(parsed.database, { fileMustExist: true });
  const rows = connection
    .prepare(
      'SELECT event_id, ts_ms, scope, session_id, agent_id, type, summary, refs_json, redacted, schema_version, created_at, metadata_json, position FROM episodic_events WHERE scope = ? AND session_id = ? ORDER BY ts_ms, id LIMIT ?',
    )
    .all(parsed.scope, parsed.session, parsed.limit);
  process.stdout.write(`${JSON.stringify({ kind: 'probe.query', ok: true, events: rows })}\n`);
  connection.close();
} else {
  process.stderr.write('usage: cli-probe --version | query <database> <scope> <session>\n');
  process.exitCode = 2;
}
