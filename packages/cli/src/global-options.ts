import type { OptionSpec } from './command-spec.js';

/** The options every command accepts. */
export const GLOBAL_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  home: {
    type: 'string',
    value: 'DIR',
    description: 'the Episodic home (default: $EPISODIC_HOME, else ~/.episodic)',
  },
  db: {
    type: 'string',
    value: 'PATH|URL',
    description:
      'the database: a SQLite file or a postgres:// URL, whose ?schema=NAME, ?statement_timeout=MS, ?query_timeout=MS and ?connect_timeout=S are read by Episodic (default: $EPISODIC_DB, else <home>/episodic.db)',
  },
  store: {
    type: 'string',
    value: 'KIND',
    choices: ['sqlite', 'fs'],
    description:
      'where runs and sessions live: sqlite (in the database) or fs (run files under <home>/sessions); $EPISODIC_STORE; default: what the home holds (its episodic-home.json, else where its runs are)',
  },
  json: { type: 'boolean', description: 'print one JSON receipt on stdout instead of text' },
  quiet: {
    type: 'boolean',
    short: 'q',
    description: 'print only results and errors (no notes, no progress)',
  },
  'no-color': { type: 'boolean', description: 'never colour the output (same as NO_COLOR=1)' },
  help: { type: 'boolean', short: 'h', description: 'show help for the command' },
  version: { type: 'boolean', short: 'v', description: 'print the version' },
};
