#!/usr/bin/env node
// Start-up time of the built `episodic` binary against raw probes, as QUALITY.md asks:
// `episodic --version` and `episodic episodes query` beside a bundled script that imports zod and
// better-sqlite3 (bundled with the same esbuild settings as the bin), and beside `node -e 0`.
// NODE_EXTRA_CA_CERTS is removed from the environment (it adds ~30 ms to every Node start).
// Usage: node bench/start-time.mjs [runs]   (after `npx tsup`)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDirectory = fileURLToPath(new URL('..', import.meta.url));
const bin = join(packageDirectory, 'dist/bin/episodic.js');
const runs = Number(process.argv[2] ?? 30);
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;

// The probes live under node_modules/.cache so they resolve better-sqlite3 like the bin does.
const probeDirectory = join(packageDirectory, 'node_modules/.cache/episodic-start-time');
mkdirSync(probeDirectory, { recursive: true });
const probes = {
  'probe-import': `import { z } from 'zod';
import Database from 'better-sqlite3';
z.object({ ok: z.boolean() }).parse({ ok: typeof Database === 'function' });`,
  'probe-query': `import { z } from 'zod';
import Database from 'better-sqlite3';
const args = z.object({ db: z.string(), scope: z.string(), limit: z.number().int().min(1).max(500) })
  .parse({ db: process.argv[2], scope: 'bench', limit: 50 });
const db = new Database(args.db);
db.pragma('busy_timeout = 5000');
db.pragma('journal_mode = WAL');
const rows = db.prepare('SELECT event_id, ts_ms, scope, session_id, agent_id, type, summary, refs_json, redacted, schema_version, created_at, position FROM episodic_events WHERE scope = ? ORDER BY ts_ms, id LIMIT ?').all(args.scope, args.limit);
process.stdout.write(JSON.stringify({ kind: 'probe', items: rows }) + '\\n');
db.close();`,
};
const require = createRequire(join(packageDirectory, 'package.json'));
const tsupEntry = require.resolve('tsup');
const esbuild = createRequire(tsupEntry)('esbuild');
for (const [name, source] of Object.entries(probes)) {
  writeFileSync(join(probeDirectory, `${name}.src.mjs`), source);
  esbuild.buildSync({
    entryPoints: [join(probeDirectory, `${name}.src.mjs`)],
    outfile: join(probeDirectory, `${name}.mjs`),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['better-sqlite3'],
    logLevel: 'warning',
  });
}

const print = (text) => process.stdout.write(`${text}\n`);
const home = mkdtempSync(join(tmpdir(), 'episodic-start-time-'));
const database = join(home, 'episodic.db');
try {
  // A handful of events: the query reads at most 50 rows either way.
  for (let index = 0; index < 5; index++) {
    const result = spawnSync(
      process.execPath,
      [
        bin,
        '--home',
        home,
        'episodes',
        'append',
        '--scope',
        'bench',
        '--session-id',
        `s${index % 5}`,
        '--agent-id',
        'bench',
        '--type',
        'tool.call',
        '--summary',
        `call ${index}`,
        '--payload-json',
        '{"n":1}',
        '-q',
      ],
      { env, encoding: 'utf8' },
    );
    if (result.status !== 0) throw new Error(result.stderr);
  }
  const commands = {
    'node -e 0': [process.execPath, '-e', '0'],
    'probe: import zod + better-sqlite3': [
      process.execPath,
      join(probeDirectory, 'probe-import.mjs'),
    ],
    'episodic --version': [process.execPath, bin, '--version'],
    'episodic --help': [process.execPath, bin, '--help'],
    'probe: zod + better-sqlite3 query': [
      process.execPath,
      join(probeDirectory, 'probe-query.mjs'),
      database,
    ],
    'episodic episodes query --json': [
      process.execPath,
      bin,
      '--home',
      home,
      'episodes',
      'query',
      '--scope',
      'bench',
      '--json',
    ],
  };
  const samples = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  for (let round = 0; round < runs + 3; round++) {
    for (const [name, argv] of Object.entries(commands)) {
      const started = process.hrtime.bigint();
      const result = spawnSync(argv[0], argv.slice(1), {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (result.status !== 0) throw new Error(`${name} failed: ${result.stderr}`);
      if (round >= 3) samples[name].push(ms);
    }
  }
  const stats = {};
  for (const [name, list] of Object.entries(samples)) {
    list.sort((left, right) => left - right);
    const at = (q) => list[Math.min(list.length - 1, Math.floor(q * list.length))];
    stats[name] = { p50: at(0.5), p90: at(0.9), min: list[0] };
  }
  const line = (name, base) => {
    const { p50, p90, min } = stats[name];
    const ratio =
      base === undefined ? '' : `  ${(p50 / stats[base].p50).toFixed(2)}× ${base} (p50)`;
    print(
      `${name.padEnd(36)} p50 ${p50.toFixed(1).padStart(6)} ms  p90 ${p90.toFixed(1).padStart(6)} ms  min ${min.toFixed(1).padStart(6)} ms${ratio}`,
    );
  };
  print(`${runs} runs each, interleaved, NODE_EXTRA_CA_CERTS unset, node ${process.version}`);
  line('node -e 0');
  line('probe: import zod + better-sqlite3', 'node -e 0');
  line('episodic --version', 'probe: import zod + better-sqlite3');
  line('episodic --version', 'node -e 0');
  line('episodic --help', 'node -e 0');
  line('probe: zod + better-sqlite3 query', 'node -e 0');
  line('episodic episodes query --json', 'probe: zod + better-sqlite3 query');
  line('episodic episodes query --json', 'probe: import zod + better-sqlite3');
} finally {
  rmSync(home, { recursive: true, force: true });
}
