// `episodic episodes …` over a database openclaw-mem 1.3.2 wrote (seed 002's own implementation;
// see test-support/seed-data/openclaw-mem/generate.sh): reading what a seed wrote is never an error.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  episodesQueryReceiptSchema,
  episodesRedactReceiptSchema,
  episodesReplayReceiptSchema,
} from '../src/receipts/index.js';
import { episodic, episodicJson, temporaryDirectory } from './helpers.js';

const FIXTURE = fileURLToPath(
  new URL(
    '../../../test-support/seed-data/openclaw-mem/openclaw-mem-1.3.2.sqlite',
    import.meta.url,
  ),
);
const LONG_SESSION = `run-${'x'.repeat(296)}`;

/** A home whose database is a copy of the openclaw-mem fixture. */
function homeWithOpenclawDatabase(): string[] {
  const directory = temporaryDirectory('episodic-openclaw-');
  const db = join(directory, 'openclaw-mem.sqlite');
  copyFileSync(FIXTURE, db);
  return ['--home', join(directory, 'home'), '--db', db];
}

describe('episodes commands over a database openclaw-mem 1.3.2 wrote', () => {
  it('--include-payload reports the one payload that is not JSON (Infinity) as damaged and returns the rest', async () => {
    const where = homeWithOpenclawDatabase();
    const args = [...where, 'episodes', 'query', '--scope', 'openclaw-mem', '--include-payload'];
    const result = await episodicJson([...args, '--limit', '500']);
    expect(result.status, result.stderr).toBe(0);
    const receipt = episodesQueryReceiptSchema.parse(result.receipt);
    expect(receipt.count).toBe(13);
    expect(receipt.damaged).toEqual([
      expect.objectContaining({ event_id: 'evt-102', column: 'payload_json' }),
    ]);
    // The integer openclaw-mem stored beyond 2^53 is printed with every digit.
    expect(result.stdout).toContain('"order_id":12345678901234567890');
    const human = await episodic(args);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/damaged: event "evt-102" \(session sess-002, .*\): .*not JSON/);
  });

  it('accepts its own next_after_id back as --after-id for ids with spaces and non-ASCII letters', async () => {
    const where = homeWithOpenclawDatabase();
    const page = async (afterId?: string) => {
      const result = await episodicJson([
        ...where,
        'episodes',
        'query',
        '--scope',
        'openclaw-mem',
        '--session-id',
        'sess-001',
        '--limit',
        '1',
        ...(afterId === undefined ? [] : ['--after-id', afterId]),
      ]);
      expect(result.status, result.stdout).toBe(0);
      return episodesQueryReceiptSchema.parse(result.receipt);
    };
    const seen: string[] = [];
    let receipt = await page();
    for (;;) {
      seen.push(...receipt.events.map((item) => item.event_id));
      if (receipt.next_after_id === null) break;
      receipt = await page(receipt.next_after_id);
    }
    expect(seen).toEqual(['evt-001', 'evt-002', 'evt 003', 'évènement-ñ-004', '事件-005']);
  });

  it('redacts by those ids', async () => {
    const where = homeWithOpenclawDatabase();
    for (const eventId of ['evt 003', '事件-005']) {
      const result = await episodicJson([
        ...where,
        'episodes',
        'redact',
        '--scope',
        'openclaw-mem',
        '--event-id',
        eventId,
      ]);
      expect(result.status, result.stdout).toBe(0);
      expect(episodesRedactReceiptSchema.parse(result.receipt).redacted_count).toBe(1);
    }
  });

  it('--global and --scope global read only the events openclaw-mem filed under its literal scope "global"; --all-scopes reads every scope', async () => {
    const where = homeWithOpenclawDatabase();
    for (const selector of [
      ['--scope', 'global'],
      ['--global'],
      ['--global', '--scope', 'Global'],
    ]) {
      const literal = await episodicJson([...where, 'episodes', 'query', ...selector]);
      expect(literal.status, literal.stdout).toBe(0);
      const receipt = episodesQueryReceiptSchema.parse(literal.receipt);
      expect(receipt).toMatchObject({
        scope: 'global',
        all_scopes: false,
        global: false,
        count: 2,
      });
      expect(receipt.events.map((item) => item.summary)).toEqual([
        'Untagged question',
        'Untagged answer',
      ]);
    }
    const every = episodesQueryReceiptSchema.parse(
      (await episodicJson([...where, 'episodes', 'query', '--all-scopes', '--limit', '500']))
        .receipt,
    );
    expect(every).toMatchObject({ scope: null, all_scopes: true, global: true, count: 17 });
  });

  it('replays and redacts a session whose id is longer than 256 characters', async () => {
    const where = homeWithOpenclawDatabase();
    const replay = await episodicJson([
      ...where,
      'episodes',
      'replay',
      LONG_SESSION,
      '--scope',
      'openclaw-mem',
    ]);
    expect(replay.status, replay.stdout).toBe(0);
    expect(episodesReplayReceiptSchema.parse(replay.receipt).count).toBe(3);
    const redact = await episodicJson([
      ...where,
      'episodes',
      'redact',
      '--scope',
      'openclaw-mem',
      '--session-id',
      LONG_SESSION,
    ]);
    expect(redact.status, redact.stdout).toBe(0);
    expect(episodesRedactReceiptSchema.parse(redact.receipt).redacted_count).toBe(3);
  });
});
