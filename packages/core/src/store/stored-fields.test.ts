import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createLedger } from './ledger-store.js';
import { createMemoryLedgerAdapter } from './memory-ledger.js';
import {
  ledgerContentFields,
  ledgerIdFields,
  STORED_RECORD_SCHEMAS,
  storedFieldInventory,
} from './stored-fields.js';
import { createStoredRedactor, type StoredRedactionMode } from './stored-redaction.js';

const SECRET = ['AKIA', 'QZ2X7WJ4KT5M3R6N'].join('');

interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  values?: unknown[];
  entries?: Record<string, unknown>;
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

/**
 * A stored record of `schema` with the secret in every position a caller fills: every string
 * that is not an id or a system label, every key of a record or of open JSON, and an extra field
 * of every loose object. At a union, sample `variant` takes option `variant % n`, so the samples
 * together reach every option. Ids and labels get harmless values (literals their own).
 */
function sampleOf(
  schema: z.ZodType,
  name: string | undefined,
  variant: number,
  depth = 0,
): unknown {
  const def = defOf(schema);
  if (depth > 12) return SECRET;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return sampleOf(def.innerType as z.ZodType, name, variant, depth);
    case 'pipe':
      return sampleOf(def.in as z.ZodType, name, variant, depth);
    case 'lazy':
      return { [SECRET]: [SECRET, { [SECRET]: SECRET }] };
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(def.shape ?? {})) {
        out[key] = sampleOf(field, key, variant, depth + 1);
      }
      const strict = def.catchall !== undefined && defOf(def.catchall).type === 'never';
      if (!strict) out.extra_field = { nested: SECRET, list: [SECRET] };
      return out;
    }
    case 'array':
      return [sampleOf(def.element as z.ZodType, name, variant, depth + 1)];
    case 'record':
      return { [SECRET]: sampleOf(def.valueType as z.ZodType, undefined, variant, depth + 1) };
    case 'union': {
      const options = def.options ?? [];
      return sampleOf(options[variant % options.length] as z.ZodType, name, variant, depth);
    }
    case 'string':
      return stringFor(name);
    case 'literal':
      return def.values?.[0];
    case 'enum':
      return Object.values(def.entries ?? {})[0];
    case 'number':
    case 'int':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return { [SECRET]: [SECRET, { [SECRET]: SECRET }] };
  }
}

const idOrSystem = new Map(
  storedFieldInventory()
    .filter((entry) => entry.class !== 'content')
    .map((entry) => [
      entry.path
        .split(/[.|[\]{}]/)
        .filter(Boolean)
        .at(-1),
      entry.class,
    ]),
);

function stringFor(name: string | undefined): string {
  if (name !== undefined && idOrSystem.has(name)) {
    if (name === 'ts' || name.endsWith('_at') || name === 'timestamp') {
      return '2026-01-01T00:00:00.000Z';
    }
    return `${name}-1`;
  }
  return `text ${SECRET} text`;
}

function samplesOf(record: string): unknown[] {
  const schema = STORED_RECORD_SCHEMAS[record] as z.ZodType;
  return Array.from({ length: 6 }, (_, variant) => sampleOf(schema, undefined, variant));
}

/** The records of the inventory whose stored form still holds the secret after `scrub`. */
function uncovered(scrub: (record: string, sample: unknown) => string): string[] {
  const left: string[] = [];
  for (const record of Object.keys(STORED_RECORD_SCHEMAS)) {
    if (record === 'ledger.event') continue;
    samplesOf(record).forEach((sample, variant) => {
      const scrubbed = scrub(record, sample);
      if (scrubbed.includes(SECRET) || scrubbed.includes('AKIA')) {
        left.push(`${record} #${variant}: ${scrubbed}`);
      }
    });
  }
  return left;
}

const MODES: StoredRedactionMode[] = ['secrets', 'content'];

function scrubWith(mode: StoredRedactionMode, inPlace: boolean) {
  return (record: string, sample: unknown) => {
    const redactor = createStoredRedactor({ mode });
    if (record.startsWith('session.')) return JSON.stringify(redactor.json(sample));
    const line = JSON.stringify(sample);
    return redactor.line(line, inPlace ? Buffer.byteLength(line) : undefined);
  };
}

describe('the stored-field inventory', () => {
  it('classifies every position of every stored record (ids and labels listed here)', () => {
    const inventory = storedFieldInventory();
    expect(inventory.length).toBeGreaterThan(200);
    for (const entry of inventory) expect(['content', 'id', 'system']).toContain(entry.class);
    // A new id or label string changes this list: review that redaction may keep its value.
    const kept = inventory
      .filter((entry) => entry.class !== 'content' && entry.position === 'text')
      .map((entry) => `${entry.record} ${entry.path} ${entry.class}`);
    expect([...new Set(kept)]).toMatchSnapshot();
    // Every caller key position: records, open JSON (payloads, parameters, metadata, meta).
    const keyPositions = inventory.filter((entry) => entry.position === 'keys');
    expect(keyPositions.map((entry) => `${entry.record} ${entry.path}`)).toEqual(
      expect.arrayContaining([
        'ledger.event payload{}',
        'ledger.event refs{}',
        'ledger.event metadata{}',
        'run:agent.event event|0.parameters{}',
        'run:run.start task.metadata{}',
        'session.snapshot meta{}',
        'session.snapshot context{}',
      ]),
    );
  });

  it('names the ledger ids (guarded at append) and content fields (overwritten by redact)', () => {
    expect(ledgerIdFields().sort()).toEqual(['agent_id', 'event_id', 'scope', 'session_id']);
    expect(ledgerContentFields().sort()).toEqual(['metadata', 'payload', 'refs', 'summary']);
  });

  for (const mode of MODES) {
    for (const inPlace of [false, true]) {
      it(`${mode} mode${inPlace ? ' (in place)' : ''} leaves no secret in any caller position or key of any stored record`, () => {
        expect(uncovered(scrubWith(mode, inPlace))).toEqual([]);
      });
    }
  }

  it('keeps ids and labels in content mode, and keys unique', () => {
    const redactor = createStoredRedactor({ mode: 'content' });
    const line = JSON.stringify({
      type: 'agent.event',
      run_id: 'run-1',
      ts: '2026-01-01T00:00:00.000Z',
      seq: 1,
      event: {
        type: 'task_step',
        step_number: 1,
        tool: 'shell',
        action: 'ran it',
        parameters: { a: 'x', b: 'y', '[REDACTED]': 'z' },
      },
    });
    const scrubbed = JSON.parse(redactor.line(line));
    expect(scrubbed.run_id).toBe('run-1');
    expect(scrubbed.event.tool).toBe('shell');
    expect(scrubbed.event.action).toBe('[REDACTED]');
    expect(Object.keys(scrubbed.event.parameters)).toEqual([
      '[REDACTED]#2',
      '[REDACTED]#3',
      '[REDACTED]',
    ]);
    // Redacting again changes nothing.
    expect(createStoredRedactor({ mode: 'content' }).line(JSON.stringify(scrubbed))).toBe(
      JSON.stringify(scrubbed),
    );
  });

  it('the coverage check fails for a redactor that misses a position', () => {
    // A redactor that scrubs values but forgets keys: the check names what is left.
    const valuesOnly = (record: string, sample: unknown) =>
      scrubWith('content', false)(record, sample).replace(
        /"\[REDACTED\](#\d+)?":/g,
        `"${SECRET}":`,
      );
    expect(uncovered(valuesOnly).length).toBeGreaterThan(0);
    // And a schema with a field the redactor does not know is still covered (content by default).
    const extended = z.looseObject({
      type: z.literal('run.end'),
      run_id: z.string(),
      note: z.string(),
    });
    const sample = sampleOf(extended, undefined, 0);
    expect(scrubWith('content', true)('run:run.end', sample)).not.toContain(SECRET);
  });

  it('ledger redaction overwrites every content field and key of the row', async () => {
    const adapter = createMemoryLedgerAdapter();
    const ledger = createLedger(adapter);
    const sample = sampleOf(
      STORED_RECORD_SCHEMAS['ledger.event'] as z.ZodType,
      undefined,
      0,
    ) as Record<string, unknown>;
    const event = {
      ...sample,
      event_id: 'e1',
      scope: 'project-a',
      session_id: 's1',
      agent_id: 'a1',
      type: 'tool.call',
      ts_ms: 1,
      metadata: { [SECRET.slice(0, 20)]: SECRET },
    };
    await ledger.append(event as never, { allow: ['secret'] });
    const before = JSON.stringify(await adapter.getEvents(['e1']));
    expect(before).toContain(SECRET);
    await ledger.redact({ scope: 'project-a', sessionId: 's1' });
    const after = JSON.stringify(await adapter.getEvents(['e1']));
    expect(after).not.toContain('AKIA');
  });
});
