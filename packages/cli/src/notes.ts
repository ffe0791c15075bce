import { existsSync } from 'node:fs';
import type { EpisodicLocation } from '@episodic/home';
import type { CommandContext } from './command-spec.js';
import { createStyles } from './output.js';

/** Prints notes on stderr for a person (never with `--json` or `--quiet`: receipts carry them). */
export function writeNotes(context: CommandContext, notes: readonly string[]): void {
  if (context.globals.json || context.globals.quiet) return;
  const styles = createStyles(context.io.stderrIsTTY === true && context.globals.color);
  for (const note of notes) context.io.stderr(`${styles.yellow('note:')} ${note}\n`);
}

/** Where the ledger was looked for: "the ledger in /h/episodic.db". */
export function describeLedger(location: EpisodicLocation): string {
  return location.databaseKind === 'postgres' ||
    existsSync(location.database) ||
    location.database === ':memory:'
    ? `the ledger in ${location.database}`
    : `the ledger in ${location.database}, which does not exist (nothing was created)`;
}
