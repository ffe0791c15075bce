// The export v3 rule (docs/design/verify.md 2.6): a stored run line, split into its record and its
// chain member and rebuilt from the parsed record (`JSON.stringify`) and the member, gives back the
// same bytes, so the commitment still holds after export and import. Property-tested with
// integer-like keys, `__proto__` as a key, -0, large and fractional numbers, and escapes.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createChainWriter, newChainState } from '../chain/index.js';
import { chainMemberText, prepareRunRecords, splitChainedRunLine } from './run-store.js';

const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());
const RUN = '0f0e0d0c-0b0a-4908-8706-000000000077';

const key = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom('__proto__', '0', '1', '10', '4294967294', 'constructor', 'é', '\u2028'),
);
const leaf = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(-0, 0, 1e21, 1e-7, 2 ** 53 - 1, -(2 ** 53) + 1, 0.1, 123.456e-300),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('any'), { maxLength: 4 }),
  object: fc.dictionary(key, tie('any'), { maxKeys: 5 }),
})).any;

describe('splitChainedRunLine and chainMemberText (export v3 rebuilds stored lines)', () => {
  it('split, parse, JSON.stringify and rebuild give back every stored line byte for byte', () => {
    fc.assert(
      fc.property(
        fc.dictionary(key, value, { maxKeys: 6 }),
        fc.integer({ min: 0, max: 70 }),
        (meta, at) => {
          const record = {
            type: 'agent.event',
            run_id: RUN,
            ts: '2026-02-03T12:00:00.000Z',
            seq: 1,
            event: { type: 'x', meta },
          };
          // What a writer stores: JSON.stringify of the record it holds.
          const recordJson = JSON.stringify(record);
          let counter = 0;
          const writer = createChainWriter({
            sha256,
            randomSalt: () => sha256(new TextEncoder().encode(String(counter++))).subarray(0, 16),
          });
          let state = newChainState();
          for (let index = 0; index < at; index++)
            state = writer.stampLine(state, '{"type":"x"}').state;
          const { line } = writer.stampLine(state, recordJson, { head: at % 2 === 0 });
          const split = splitChainedRunLine(line);
          expect(split).not.toBeNull();
          if (split === null || split.chain === null) throw new Error('expected a chained line');
          const [entry] = prepareRunRecords(RUN, [split.record]);
          expect(entry?.json).toBe(split.recordJson);
          expect(`${entry?.json.slice(0, -1)},"chain":${chainMemberText(split.chain)}}`).toBe(line);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a line without a member, a padded redacted line and damage split as they should', () => {
    expect(splitChainedRunLine('{"type":"header","a":1}')).toMatchObject({ chain: null });
    expect(splitChainedRunLine('{"type":"head')).toBeNull();
    expect(splitChainedRunLine('[1]')).toBeNull();
    const redacted =
      '{"type":"run.start","x":"[REDACTED]","chain":{"n":2,"r":"OAccrEPLowjzTGZTCNYJ-Q","c":"5R-suxyDK06RVxlgv_B0IFslmmuEkms9fnirc9L6zB4"}}   ';
    const split = splitChainedRunLine(redacted);
    expect(split?.chain).toEqual({
      n: 2,
      r: 'OAccrEPLowjzTGZTCNYJ-Q',
      c: '5R-suxyDK06RVxlgv_B0IFslmmuEkms9fnirc9L6zB4',
    });
    expect(split?.recordJson).toBe('{"type":"run.start","x":"[REDACTED]"}');
    // A member in another key order is not one Episodic wrote: the line is a record with a `chain` key.
    const reordered =
      '{"type":"x","chain":{"n":2,"c":"5R-suxyDK06RVxlgv_B0IFslmmuEkms9fnirc9L6zB4","r":"OAccrEPLowjzTGZTCNYJ-Q"}}';
    expect(splitChainedRunLine(reordered)).toMatchObject({ chain: null, recordJson: reordered });
  });
});
