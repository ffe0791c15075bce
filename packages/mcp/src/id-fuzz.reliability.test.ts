// Guarantee (QUALITY.md, "MCP id fuzz"; research/reliability.md T30, MCP tools spec "validate all
// tool inputs", CVE-2025-53110): ids built from `../`, absolute paths, NUL bytes, Unicode lookalikes
// and 10 KB strings are 100 % rejected with `isError` before any storage call. Proven twice: by
// counting every call on wrapped store adapters, and with a real store-fs run store in a temp
// directory where no file appears and the wrapped file I/O sees no call.
// Reduced count by default; RELIABILITY_FULL=1 runs the full 10,000 ids per tool. Seeds are logged
// and replayable (FC_SEED / FC_PATH).
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createArtifactStore, createLedger } from '@episodic/core';
import {
  createMemoryArtifactStoreAdapter,
  createMemoryLedgerAdapter,
} from '@episodic/core/adapter';
import { createFsStore, type FsIo, nodeFsIo } from '@episodic/store-fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { count, fuzzParameters } from './__fixtures__/fuzz.js';
import { CREATE_ARGUMENTS, connect, counted, countingStores } from './__fixtures__/mcp-harness.js';

const IDS_PER_TOOL = count(300, 10_000);

const UUID = '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Characters that look like the ones a UUID is made of. */
const LOOKALIKES: Record<string, string[]> = {
  a: ['\u0430', '\uff41', '\u0251'],
  b: ['\u0184', '\uff42'],
  c: ['\u0441', '\uff43'],
  e: ['\u0435', '\uff45'],
  f: ['\uff46'],
  '0': ['\u041e', '\uff10', '\u0660', '\u06f0'],
  '1': ['\uff11', '\u0661', 'l'],
  '2': ['\uff12'],
  '3': ['\uff13', '\u0417'],
  '4': ['\uff14'],
  '5': ['\uff15'],
  '6': ['\uff16'],
  '9': ['\uff19'],
  '-': ['\u2010', '\u2011', '\u2212', '\uff0d', '\u00ad'],
};

const traversal = fc
  .tuple(
    fc.constantFrom(
      '../',
      '..\\',
      '%2e%2e%2f',
      '..%2f',
      '/etc/passwd',
      '/tmp/',
      'C:\\Windows\\',
      '\\\\server\\share\\',
      'file:///etc/',
      './',
      '~/',
    ),
    fc.integer({ min: 1, max: 6 }),
    fc.constantFrom('', UUID, 'sessions/state/x.json', 'etc/passwd'),
  )
  .map(([piece, times, tail]) => piece.repeat(times) + tail);

const withNul = fc
  .tuple(fc.integer({ min: 0, max: UUID.length }), fc.constantFrom('\0', '\0\0\0', '%00'))
  .map(([at, nul]) => UUID.slice(0, at) + nul + UUID.slice(at));

const lookalike = fc
  .tuple(fc.integer({ min: 0, max: UUID.length - 1 }), fc.nat())
  .filter(([at]) => LOOKALIKES[UUID[at] as string] !== undefined)
  .map(([at, pick]) => {
    const options = LOOKALIKES[UUID[at] as string] as string[];
    return UUID.slice(0, at) + options[pick % options.length] + UUID.slice(at + 1);
  });

const huge = fc
  .tuple(fc.constantFrom('a', UUID, '../', '\u0430', '0'), fc.integer({ min: 10_240, max: 12_000 }))
  .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));

const padded = fc
  .constantFrom(' ', '\n', '\t', '\u200b', '\ufeff', '/', '/..', '#', '?x=1')
  .chain((pad) => fc.constantFrom(`${pad}${UUID}`, `${UUID}${pad}`));

const noise = fc
  .string({ unit: 'binary', maxLength: 120 })
  .filter((value) => !UUID_PATTERN.test(value));

const nonString = fc.oneof(
  fc.integer(),
  fc.constant(null),
  fc.array(fc.constant(UUID), { maxLength: 2 }),
  fc.constant({ id: UUID }),
  fc.boolean(),
);

const badId = fc.oneof(traversal, withNul, lookalike, huge, padded, noise, nonString);

/** Every tool that takes an id, with the arguments that carry the fuzzed one. */
const CALLS: ReadonlyArray<[string, (id: unknown) => Record<string, unknown>]> = [
  ['get_episode', (id) => ({ episode_id: id })],
  ['get_episode_timeline', (id) => ({ episode_id: id })],
  ['add_episode_step', (id) => ({ episode_id: id, step_number: 1, tool: 't', action: 'a' })],
  ['complete_episode', (id) => ({ episode_id: id, outcome_type: 'success', verdict: 'done' })],
  ['delete_episode', (id) => ({ episode_id: id, confirm: true })],
  ['replay_session', (id) => ({ session_id: id, source: 'runs' })],
  ['list_runs', (id) => ({ session_id: id })],
];

/** Every file under `root` with its size and modification time. */
function tree(root: string): string[] {
  const entries: string[] = [];
  const walk = (directory: string) => {
    for (const name of readdirSync(directory)) {
      const path = join(directory, name);
      const stat = statSync(path);
      entries.push(`${path}:${stat.size}:${stat.mtimeMs}`);
      if (stat.isDirectory()) walk(path);
    }
  };
  walk(root);
  return entries.sort();
}

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

describe('MCP id fuzz (T30)', () => {
  it(`rejects ${IDS_PER_TOOL} fuzzed ids per tool with isError before any storage call`, async () => {
    const counting = countingStores();
    const mcp = await connect({ stores: counting.stores, scope: 'fuzz' });
    try {
      for (const [tool, argsFor] of CALLS) {
        await fc.assert(
          fc.asyncProperty(badId, async (id) => {
            const outcome = await mcp.call(tool, argsFor(id));
            expect(outcome.isError).toBe(true);
            expect(outcome.body.code).toBe('VALIDATION_ERROR');
            expect(outcome.text).not.toMatch(/\/etc\/|\\\\|[A-Za-z]:\\/);
          }),
          fuzzParameters(`id fuzz ${tool}`, IDS_PER_TOOL, IDS_PER_TOOL),
        );
      }
      expect(Object.fromEntries(counting.calls)).toEqual({});
    } finally {
      await mcp.close();
    }
  });

  it('touches no file of a real run store in a temp directory', async () => {
    const root = mkdtempSync(join(tmpdir(), 'episodic-fuzz-'));
    directories.push(root);
    const ioCalls = new Map<string, number>();
    const io = counted<FsIo>(nodeFsIo, ioCalls, 'io');
    const fs = createFsStore({ root, io, durability: 'none' });
    const mcp = await connect({
      stores: {
        runs: fs.runs,
        ledger: createLedger(createMemoryLedgerAdapter()),
        artifacts: createArtifactStore(createMemoryArtifactStoreAdapter()),
      },
    });
    const before = tree(root);
    try {
      for (const [tool, argsFor] of CALLS) {
        await fc.assert(
          fc.asyncProperty(badId, async (id) => {
            expect((await mcp.call(tool, argsFor(id))).isError).toBe(true);
          }),
          fuzzParameters(
            `id fuzz ${tool} (fs)`,
            Math.ceil(IDS_PER_TOOL / 3),
            Math.ceil(IDS_PER_TOOL / 3),
          ),
        );
      }
      expect(Object.fromEntries(ioCalls)).toEqual({});
      expect(tree(root)).toEqual(before);

      // Well-formed ids that name nothing (nil, max) are looked up, found missing, and create nothing.
      for (const id of [
        '00000000-0000-0000-0000-000000000000',
        'ffffffff-ffff-ffff-ffff-ffffffffffff',
      ]) {
        expect((await mcp.call('get_episode', { episode_id: id })).body.code).toBe('NOT_FOUND');
        expect(
          (await mcp.call('delete_episode', { episode_id: id, confirm: true })).body.code,
        ).toBe('NOT_FOUND');
      }
      expect(tree(root).filter((entry) => entry.includes('.jsonl'))).toEqual([]);

      // An upper-case id is the same episode as its lower-case form.
      const id = (await mcp.call('create_episode', CREATE_ARGUMENTS)).body.episode_id as string;
      const upper = await mcp.call('get_episode', { episode_id: id.toUpperCase() });
      expect(upper.body.episode.id).toBe(id);
      const files = tree(root).filter(
        (entry) => entry.endsWith('.jsonl') || entry.includes('.jsonl:'),
      );
      expect(files).toHaveLength(1);
      expect(files[0]?.startsWith(join(fs.root, 'sessions'))).toBe(true);
    } finally {
      await mcp.close();
      await fs.close();
    }
  });
});
