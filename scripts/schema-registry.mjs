// @ts-check
// Every format Episodic writes or accepts, one line each: name, format version, the package that
// owns it, its zod schema (from the built packages), and one sentence. `generate-schemas.mjs`
// turns each into a JSON Schema (draft 2020-12) at `schemas/<package>/<name>.v<version>.json`,
// and each package ships its own at `@episodic/<package>/schemas/<name>.v<version>.json`.
//
// Adding a format (or a new version of one) is one line here, then `pnpm schemas`.
import * as cli from '@episodic/cli';
import * as core from '@episodic/core/schemas';
import * as home from '@episodic/home';
import * as mcp from '@episodic/mcp';

/**
 * @typedef {object} SchemaEntry
 * @property {string} name           the schema's name, e.g. `run-record.header`
 * @property {string} version        the format version, e.g. `v1` (a seed or file's own version)
 * @property {string} package        the package that owns (and ships) it
 * @property {import('zod').ZodType} schema
 * @property {string} title
 * @property {string} description
 */

/**
 * @param {string} name
 * @param {string} version
 * @param {string} pkg
 * @param {import('zod').ZodType} schema
 * @param {string} title
 * @param {string} description
 * @returns {SchemaEntry}
 */
const entry = (name, version, pkg, schema, title, description) => ({
  name,
  version,
  package: pkg,
  schema,
  title,
  description,
});

const CORE = '@episodic/core';
const CLI = '@episodic/cli';
const MCP = '@episodic/mcp';

/** @type {Record<string, string>} */
const RECORD_TITLES = {
  header: 'The first line of a run file: who ran what, with which model, where.',
  'run.start': 'The user input that started the run.',
  'run.context': "How much of the model's context window is left.",
  'agent.event': 'One event for UI playback, numbered by seq from 0 within the run.',
  'tool.output': 'The full, raw output of one tool call.',
  'llm.request': 'Exactly what was sent to the model for one invocation.',
  'llm.response': 'What the model answered; seq matches its llm.request.',
  'run.status': 'A status change of the run.',
  'run.error': 'The error that ended a run.',
  'run.end': 'The last record of a run that ended normally.',
};

/** @type {SchemaEntry[]} */
export const SCHEMAS = [
  // Run files (seed 001): one JSON object per line.
  ...core.RUN_RECORD_TYPES.map((type) =>
    entry(
      `run-record.${type.replace('.', '-')}`,
      'v1',
      CORE,
      core.runRecordSchemas[type],
      `Run record "${type}"`,
      RECORD_TITLES[type] ?? type,
    ),
  ),
  entry(
    'run-record.custom',
    'v1',
    CORE,
    core.customRunRecordSchema,
    'Custom run record',
    'A record of a namespaced type x.<org>.<name> that a writer adds; readers keep it.',
  ),
  // Session snapshots (seed 001 SessionState joined with seed 000's log).
  entry(
    'session-state',
    'v1',
    CORE,
    core.sessionStateSchema.omit({ episodes: true }),
    'Session snapshot (version 1)',
    'A version 1 session state snapshot (sessions/state/<session_id>.json): chat messages for resume, the committed episodic log as JSONL in `episodic`, context and revision. Still read; written no more.',
  ),
  entry(
    'session-state',
    'v2',
    CORE,
    core.sessionStateSchema,
    'Session base snapshot',
    "A session's base snapshot (sessions/state/<session_id>.json): its whole state as of `revision` (seed 001 SessionState fields, context, the committed log as `episodes`), written one episode and one message per line. The commits since are session deltas beside it.",
  ),
  entry(
    'session-delta',
    'v1',
    CORE,
    core.sessionDeltaSchema,
    'Session delta',
    "One line of a session's deltas (sessions/state/<session_id>.deltas.jsonl): one commit after the base, with the episodes it appended and what else it changed.",
  ),
  entry(
    'episode',
    'v1',
    CORE,
    core.episodeSchema,
    'Episode',
    "One episode of a session log (seed 000): an item, boundary or meta episode, as in a base's `episodes`, a delta's `episodes` or a version 1 snapshot's `episodic` JSONL.",
  ),
  entry(
    'input-item',
    'v1',
    CORE,
    core.inputItemSchema,
    'Model input item',
    'A model input item in the OpenAI Responses style: message, function_call, function_call_output, reasoning, or any other type (kept as it is).',
  ),
  entry(
    'base-message',
    'v1',
    CORE,
    core.baseMessageSchema,
    'Chat message',
    'A chat-style message as run records and snapshots store it (seed 001 BaseMessage).',
  ),
  // The ledger (seed 002).
  entry(
    'ledger-event',
    'v0',
    CORE,
    core.ledgerEventSchema,
    'Ledger event',
    'A stored ledger event as reads return it (schema_version "episodic.ledger.v0").',
  ),
  entry(
    'ledger-event.new',
    'v0',
    CORE,
    core.newLedgerEventSchema,
    'New ledger event',
    'What a ledger append accepts.',
  ),
  // Artifacts (seed 003) and task episodes (seed 004).
  entry(
    'artifact',
    'v1',
    CORE,
    core.artifactSchema,
    'Artifact',
    'An artifact (a pattern, a reflection, a checkpoint summary) with the episodes it came from and its effective metadata.',
  ),
  entry(
    'artifact.upsert',
    'v1',
    CORE,
    core.upsertArtifactInputSchema,
    'Artifact upsert',
    'What an artifact store upsert accepts.',
  ),
  entry(
    'task-episode',
    'v1',
    CORE,
    core.taskEpisodeSchema,
    'Task episode',
    'A task episode with its steps, outcome, reflection, reward and patterns (seed 004 get_episode).',
  ),
  entry(
    'task-timeline',
    'v1',
    CORE,
    core.taskTimelineSchema,
    'Task timeline',
    "A task episode's steps in order with their result types (seed 004 get_episode_timeline).",
  ),
  // The export file (`episodic export`).
  entry(
    'export-line',
    'v3',
    CLI,
    cli.exportLineSchema,
    'Export file line',
    `One line of an "${cli.EXPORT_FORMAT}" export file: export.header, session, run.record (with its chain member when the run is chained), erasure, ledger.event, artifact, episode.metadata or export.end. It also validates "episodic.export.v2" files (no chain members, no erasure lines) and "episodic.export.v1" files (no artifact or episode.metadata lines either).`,
  ),
  // The v2 path stays published: what referenced it keeps resolving (the schema is v3's, which
  // accepts every v2 line).
  entry(
    'export-line',
    'v2',
    CLI,
    cli.exportLineSchema,
    'Export file line (v2 path)',
    'Kept so references to export-line.v2.json keep working: the same schema as export-line.v3.json, which validates "episodic.export.v1", "v2" and "v3" files.',
  ),
  // A home's config (written when the CLI or the MCP server creates a home).
  entry(
    'home-config',
    'v1',
    MCP,
    home.homeConfigSchema,
    'Home config',
    `<home>/${home.HOME_CONFIG_FILE}: which store holds the home's runs and sessions (sqlite or fs), when and by what it was created, whether its run files are chained, and the random key that names it in anchor files (home_key).`,
  ),
  // The CLI's --json receipts.
  entry(
    'receipt.error',
    'v1',
    CLI,
    cli.errorReceiptSchema,
    'Error receipt',
    'What every command prints with --json when it fails.',
  ),
  ...Object.entries(cli.RECEIPT_SCHEMAS).map(([kind, schema]) => {
    const command = kind.replace(/^episodic\./, '').replace(/\.v1$/, '');
    return entry(
      `receipt.${command}`,
      'v1',
      CLI,
      schema,
      `Receipt of "episodic ${command.replaceAll('.', ' ')} --json"`,
      `What "episodic ${command.replaceAll('.', ' ')} --json" prints on success (kind "${kind}").`,
    );
  }),
  // The MCP tools.
  ...mcp.EPISODIC_TOOL_DEFINITIONS.flatMap((tool) => [
    entry(
      `tool.${tool.name}.input`,
      'v1',
      MCP,
      tool.inputSchema,
      `${tool.name} arguments`,
      tool.description,
    ),
    entry(
      `tool.${tool.name}.output`,
      'v1',
      MCP,
      mcp.EPISODIC_TOOL_OUTPUT_SCHEMAS[tool.name],
      `${tool.name} result`,
      `The JSON text of a successful ${tool.name} result.`,
    ),
  ]),
  entry(
    'tool.error',
    'v1',
    MCP,
    mcp.toolErrorBodySchema,
    'Tool error',
    'The JSON text of an MCP tool result with isError: true.',
  ),
];
