// What doctor says about the chain (docs/design/verify.md 2.5): on a home that chains, the streams
// whose first entries were written before chaining was turned on, per kind, and from which entry
// each is verified. Information only: it never changes doctor's exit code.
import type { ChainStreamKind } from '@episodic/core';
import { readHomeConfig, verifyEpisodicHome } from '@episodic/home';
import type { CommandContext } from '../command-spec.js';
import { withStores } from '../stores.js';

/** Per kind of stream: how many hold entries written before chaining, and where verify starts. */
export interface UnchainedPrefixes {
  readonly kind: ChainStreamKind;
  /** Streams of this kind whose first entries were written before chaining. */
  readonly streams: number;
  /** The entry verification starts from: the lowest and highest over those streams. */
  readonly verified_from: { readonly min: number; readonly max: number };
}

/**
 * The unchained prefixes of a chained home (`unchained` findings with `verified_from`), per kind;
 * null when the home does not chain or its stores cannot be read (the other checks report that).
 */
export async function checkUnchainedPrefixes(
  context: CommandContext,
  home: string,
): Promise<UnchainedPrefixes[] | null> {
  let chain: unknown;
  try {
    chain = readHomeConfig(home)?.chain;
  } catch {
    return null; // an unreadable config is a problem reported elsewhere
  }
  if (chain === undefined || chain === false) return null;
  try {
    const { report } = await withStores(
      context,
      (stores) => verifyEpisodicHome(stores, { ledger: { global: true }, maxFindings: 1_000_000 }),
      { readOnly: true },
    );
    const byKind = new Map<ChainStreamKind, { streams: number; min: number; max: number }>();
    for (const finding of report.findings) {
      const kind = finding.stream.kind;
      if (finding.finding !== 'unchained' || finding.verified_from === undefined) continue;
      if (kind === undefined) continue;
      const from = finding.verified_from;
      const known = byKind.get(kind);
      byKind.set(
        kind,
        known === undefined
          ? { streams: 1, min: from, max: from }
          : {
              streams: known.streams + 1,
              min: Math.min(known.min, from),
              max: Math.max(known.max, from),
            },
      );
    }
    return [...byKind].map(([kind, { streams, min, max }]) => ({
      kind,
      streams,
      verified_from: { min, max },
    }));
  } catch {
    return null; // a store that cannot be opened is reported by the database and file checks
  }
}

const NOUNS: Record<ChainStreamKind, readonly [string, string]> = {
  run: ['run', 'runs'],
  ledger: ['ledger session', 'ledger sessions'],
  session: ['session', 'sessions'],
  erasures: ['erasure log', 'erasure logs'],
};

/** One line per kind: "3 runs have entries written before chaining; verified from entry 5". */
export function unchainedPrefixLine(prefixes: UnchainedPrefixes): string {
  const [one, many] = NOUNS[prefixes.kind];
  const { min, max } = prefixes.verified_from;
  const has = prefixes.streams === 1 ? `1 ${one} has` : `${prefixes.streams} ${many} have`;
  const from =
    min === max ? `verified from entry ${min}` : `verified from entry ${min}–${max} (per stream)`;
  return `${has} entries written before chaining; ${from}`;
}
