import type { CommandModule, CommandSpec, GroupSpec, OptionSpec } from './command-spec.js';
import { GLOBAL_OPTIONS } from './global-options.js';

// Every command's help and options are data here, so `--help` and usage errors need no command
// module: a handler module (and zod, the stores, better-sqlite3) loads only when its command runs.

export { GLOBAL_OPTIONS } from './global-options.js';

/** The ledger's event types (core's LEDGER_EVENT_TYPES), for completion; core is not loaded here. */
const LEDGER_EVENT_TYPES = [
  'conversation.user',
  'conversation.assistant',
  'tool.call',
  'tool.result',
  'ops.decision',
  'ops.alert',
];

const scope: OptionSpec = {
  type: 'string',
  value: 'SCOPE',
  description: 'the scope (a project, tenant or team; normalized: "My Project" → my-project)',
};
const globalScope: OptionSpec = {
  type: 'boolean',
  description:
    'the scope named global, the same as --scope global (seed 002, as in openclaw-mem: where events without a scope go). Not every scope: that is --all-scopes',
};
const allScopes: OptionSpec = {
  type: 'boolean',
  description: 'read every scope (never implied: give --scope, --global or --all-scopes)',
};
const allScopesChanging: OptionSpec = {
  type: 'boolean',
  description:
    'act on every scope (never implied): --dry-run lists what would change in each scope, --yes confirms',
};
const confirmAllScopes: OptionSpec = {
  type: 'boolean',
  short: 'y',
  description:
    'confirm the change across every scope (required with --all-scopes, unless --dry-run)',
};
const taskScopeOption: OptionSpec = {
  type: 'string',
  value: 'SCOPE',
  description:
    'the scope of the task episodes (default: $EPISODIC_SCOPE, else default): the same ones an MCP server bound to it sees',
};
const redactionMode: OptionSpec = {
  type: 'string',
  value: 'MODE',
  choices: ['secrets', 'content'],
  description:
    'secrets (default: replace what the secret detectors find with [REDACTED:<rule>]) or content (replace all text, keep ids, times and types)',
};
const redactionKind: OptionSpec = {
  type: 'string',
  multiple: true,
  value: 'KIND',
  choices: ['secret', 'pii', 'tool_output'],
  description:
    'with secrets mode, the kinds of finding replaced: secret (default), pii, tool_output (repeatable)',
};
const limit = (defaultValue: number, max = 500): OptionSpec => ({
  type: 'string',
  value: 'N',
  description: `at most N results (1–${max}, default ${defaultValue})`,
});
const afterId: OptionSpec = {
  type: 'string',
  value: 'EVENT_ID',
  description:
    'continue after this event (the next_after_id of the previous page, or its first 6 or more characters)',
};
const includePayload: OptionSpec = {
  type: 'boolean',
  description: 'return payloads too (queries are summary-only by default)',
};
const metadataCondition: OptionSpec = {
  type: 'string',
  multiple: true,
  value: 'COND',
  description:
    'a metadata condition, repeatable, all must hold: key=value, key<>value, key>=5, "key IN a,b", "key CONTAINS a,b", "key HAS SUBSTRING x", "key IS NULL"',
};
const metadataFilter: OptionSpec = {
  type: 'string',
  value: 'JSON',
  description:
    'a full metadata filter: {"type":"and"|"or","filters":[…],"groups":[…]} (combined with --metadata by AND)',
};
const runId = {
  name: 'RUN_ID',
  required: true,
  description: 'the run id (a UUID), or its first 6 or more characters as "runs list" shows them',
} as const;
const taskId = {
  name: 'EPISODE_ID',
  required: true,
  description:
    "the task episode id (printed by tasks create), or its first 6 or more characters (a prefix of another scope's task is not found)",
} as const;
/** What every time option accepts (the same parser, `time-option.ts`). */
const TIME_FORMS =
  'TIME: 2026-01-31, 2026-01-31T12:00:00Z, 2h, 3d, 1w, today, yesterday, now or epoch ms; a bare date is a local day';

/** The ledger's event-type filter (`episodes query`, `search`). */
const ledgerTypes: OptionSpec = {
  type: 'string',
  multiple: true,
  value: 'TYPE',
  choices: LEDGER_EVENT_TYPES,
  description: 'only these types: repeat the option or separate them with commas',
};
/** The run record types that hold searched text (`search --runs --type`), for completion. */
const SEARCHED_RUN_RECORD_TYPES = [
  'run.start',
  'agent.event',
  'tool.output',
  'llm.response',
  'run.status',
  'run.error',
  'run.end',
] as const;
/** The ledger's inclusive time range (`episodes query`, `search`). */
const fromTime: OptionSpec = {
  type: 'string',
  value: 'TIME',
  description: `only events at or after TIME (${TIME_FORMS})`,
};
const toTime: OptionSpec = {
  type: 'string',
  value: 'TIME',
  description: 'only events at or before TIME (a bare date: the end of that day)',
};
const fromDate: OptionSpec = {
  type: 'string',
  value: 'TIME',
  description: `only runs started at or after TIME (${TIME_FORMS})`,
};
const toDate: OptionSpec = {
  type: 'string',
  value: 'TIME',
  description:
    'only runs started at or before TIME (a bare date, today or yesterday: the end of that day)',
};

const episodes = () => import('./commands/episodes.js');
const episodesRedact = () => import('./commands/episodes-redact.js');
const runs = () => import('./commands/runs.js');
const sessions = () => import('./commands/sessions.js');
const tasks = () => import('./commands/tasks.js');
const patterns = () => import('./commands/patterns.js');
const mcp = () => import('./commands/mcp.js');
const doctor = () => import('./commands/doctor.js');
const transfer = () => import('./commands/transfer.js');
const migrate = () => import('./commands/migrate.js');
const importTranscripts = () => import('./commands/import-transcripts.js');
const scopes = () => import('./commands/scopes.js');
const search = () => import('./commands/search.js');
const verify = () => import('./commands/verify.js');
const anchors = () => import('./commands/anchors.js');
// The completion script is generated from this table, which lists `completion` too: the table
// hands itself to the handler, so the handler's module never imports the table back.
const completion = async (): Promise<CommandModule> => {
  const { completionHandler } = await import('./completion/completion-command.js');
  return { completion: completionHandler(COMMANDS, GROUPS, GLOBAL_OPTIONS) };
};
const ui = () => import('./commands/ui.js');

/** The command groups, in the order help lists them. */
export const GROUPS: readonly GroupSpec[] = [
  {
    name: 'episodes',
    summary: 'the scoped ledger: add, read, redact and expire events',
    description:
      'Ledger events are the queryable, redactable, retention-managed record of what agents did. Every command names a scope (--scope, or --global for the scope named global) or asks for every scope with --all-scopes; nothing falls back across scopes. Changing every scope (redact, gc) takes --yes, and --dry-run lists what would change in each scope.',
    examples: [
      'episodic episodes append --scope my-project --session-id sess-001 --agent-id planner --type conversation.user --summary "Asked for status"',
      'episodic episodes query --scope my-project --session-id sess-001 --json',
    ],
  },
  {
    name: 'runs',
    summary: 'run files: list, show, replay and tail runs',
    examples: ['episodic runs list --from 2026-01-01', 'episodic runs tail RUN_ID -f'],
  },
  {
    name: 'sessions',
    summary: 'session snapshots: list, show, redact and fold',
    examples: [
      'episodic sessions list',
      'episodic sessions show SESSION_ID',
      'episodic sessions fold SESSION_ID',
    ],
  },
  {
    name: 'tasks',
    summary: 'task episodes: list, create, add steps, complete, show, timeline, delete',
    examples: [
      'episodic tasks create --description "Add rate limiting" --domain web-api --task-type code_generation',
      'episodic tasks timeline EPISODE_ID',
    ],
  },
  {
    name: 'patterns',
    summary: 'learned patterns: search by words, type, task and metadata, show one',
    examples: [
      'episodic patterns search --type tool_sequence --metadata source=crm',
      'episodic patterns show tool_sequence:651c551c8b261de85d2d182223b0c924',
    ],
  },
  {
    name: 'scopes',
    summary: 'the scopes of the home and what each holds',
    examples: ['episodic scopes list', 'episodic scopes list --json'],
  },
  {
    name: 'anchors',
    summary: 'signed chain heads: make a key, anchor the home, check it with verify --anchors',
    description:
      'An anchor file signs the current head of every chained stream with an Ed25519 key you hold (docs/design/verify.md section 5). Keep keys and anchor files outside the home: "episodic verify --anchors FILE" then catches a stream rewritten whole, which the chain alone cannot.',
    examples: [
      'episodic anchors keygen --out ~/.config/episodic/anchor.pem',
      'episodic anchors create --key ~/.config/episodic/anchor.pem --out /backup/anchors/$(date -u +%F).json --all-scopes',
    ],
  },
];

/** `import claude-code|codex|openai PATH`: one spec per transcript format. */
function importTranscriptCommand(
  format: string,
  summary: string,
  argument: string,
  argumentDescription: string,
  description: string,
  examples: readonly string[],
): CommandSpec {
  return {
    path: ['import', format],
    summary,
    usage: `episodic import ${format} ${argument} [--scope SCOPE] [--dry-run] [options]`,
    description: `${description} Every id is derived from the source, so importing again changes nothing, and a transcript that grew since is continued (the snapshot gets the next revision, the runs their new records). What cannot be mapped is kept, never dropped; damaged lines are reported and skipped, and a file most of whose messages end up as raw data gets a warning. Each conversation becomes a session snapshot, one run per user turn and ledger events in --scope. Each file is imported all or nothing: a file with a conversation the stores refuse is not written at all (the receipt's file_results say which files were imported; exit code 1), and --dry-run reports the same.`,
    positionals: [{ name: argument, required: true, description: argumentDescription }],
    options: {
      scope: {
        type: 'string',
        value: 'SCOPE',
        description:
          'the ledger scope of the imported events (default: $EPISODIC_SCOPE, else default)',
      },
      'no-ledger': {
        type: 'boolean',
        description: 'write sessions and runs only, no ledger events',
      },
      'agent-id': {
        type: 'string',
        value: 'ID',
        description: `the agent_id of the ledger events (default: ${format})`,
      },
      allow: {
        type: 'string',
        multiple: true,
        value: 'KIND',
        description:
          'store flagged content of this kind in the ledger as it is (pii, secret, tool_output; repeatable) instead of replacing it with [REDACTED:…] placeholders',
      },
      time: {
        type: 'string',
        value: 'DATE',
        description:
          "the time of entries that have none (ISO 8601; default: the file's modification time)",
      },
      'dry-run': {
        type: 'boolean',
        description: 'read, plan and check every file as the import would; write nothing',
      },
    },
    examples,
    load: importTranscripts,
    handler: 'importTranscripts',
  };
}

/** Every command. */
export const COMMANDS: readonly CommandSpec[] = [
  {
    path: ['episodes', 'append'],
    summary: 'append one event to the ledger',
    usage:
      'episodic episodes append --scope SCOPE --session-id ID --agent-id ID --type TYPE --summary TEXT [options]',
    description:
      'Appends one ledger event. The payload and refs are stored as canonical JSON and capped in UTF-8 bytes; secret-, PII- and tool-output-like content is rejected unless allowed. Giving --event-id makes a retry idempotent: the same id with the same content returns the original (duplicate: true).',
    options: {
      scope: { ...scope, description: 'the scope the event belongs to (required)' },
      'session-id': {
        type: 'string',
        value: 'ID',
        description: 'the run or conversation (required)',
      },
      'agent-id': {
        type: 'string',
        value: 'ID',
        description: 'the actor, e.g. planner, worker, cron (required)',
      },
      type: {
        type: 'string',
        value: 'TYPE',
        choices: LEDGER_EVENT_TYPES,
        description:
          'conversation.user, conversation.assistant, tool.call, tool.result, ops.decision or ops.alert, any case (required)',
      },
      summary: { type: 'string', value: 'TEXT', description: 'a short description (required)' },
      'event-id': {
        type: 'string',
        value: 'ID',
        description: 'the event id (default: a new ULID); reuse it to retry safely',
      },
      'ts-ms': {
        type: 'string',
        value: 'TIME',
        description: `the event time (default: now; ${TIME_FORMS})`,
      },
      'payload-json': {
        type: 'string',
        value: 'JSON',
        description:
          'the payload, any JSON value, stored exactly (integers beyond 2^53 keep every digit; a number a double cannot hold is refused)',
      },
      'payload-file': {
        type: 'string',
        value: 'FILE',
        description: 'read the payload JSON from FILE ("-" for stdin); it must be UTF-8',
      },
      'refs-json': {
        type: 'string',
        value: 'JSON',
        description: 'links as a JSON object, e.g. {"run_id":"…","file":"src/a.ts"}',
      },
      'refs-file': { type: 'string', value: 'FILE', description: 'read the refs JSON from FILE' },
      'metadata-json': {
        type: 'string',
        value: 'JSON',
        description: 'filterable metadata: a JSON object of at most 10 keys',
      },
      'payload-cap-bytes': {
        type: 'string',
        value: 'BYTES',
        description: 'reject a payload larger than BYTES of canonical JSON (default 8192)',
      },
      'refs-cap-bytes': {
        type: 'string',
        value: 'BYTES',
        description: 'reject refs larger than BYTES of canonical JSON (default 4096)',
      },
      'allow-tool-output': {
        type: 'boolean',
        description: 'store content that looks like raw tool output (stack traces, escapes, HTML)',
      },
      allow: {
        type: 'string',
        multiple: true,
        value: 'KIND',
        choices: ['pii', 'secret', 'tool_output'],
        description:
          'store flagged content of this kind anyway: pii, secret or tool_output (repeatable)',
      },
      'redact-content': {
        type: 'boolean',
        description:
          'replace flagged content with typed placeholders ([REDACTED:aws_key]) instead of rejecting it',
      },
      'expected-position': {
        type: 'string',
        value: 'N',
        description: "fail with a conflict unless the session's last position is N (0: empty)",
      },
    },
    examples: [
      'episodic episodes append --scope openclaw-mem --session-id sess-001 --agent-id lyria --type conversation.user --summary "Asked for status" --payload-json \'{"intent":"status"}\' --refs-json \'{"recordRef":"obs:42"}\' --json',
      'episodic episodes append --scope ci --session-id build-7 --agent-id runner --type tool.result --summary "tests passed" --payload-file result.json --allow-tool-output',
    ],
    load: episodes,
    handler: 'append',
  },
  {
    path: ['episodes', 'query'],
    summary: 'read events of one scope, oldest first',
    usage: 'episodic episodes query (--scope SCOPE | --global | --all-scopes) [options]',
    description:
      'Reads ledger events ordered by time, then insertion. Summary-only unless --include-payload. The time range is inclusive. When more events match than --limit, the receipt has a next_after_id to pass as --after-id.',
    options: {
      scope,
      global: globalScope,
      'all-scopes': allScopes,
      'session-id': { type: 'string', value: 'ID', description: 'only this session' },
      type: ledgerTypes,
      from: fromTime,
      to: toTime,
      'from-ts-ms': { type: 'string', value: 'TIME', description: 'the same as --from' },
      'to-ts-ms': { type: 'string', value: 'TIME', description: 'the same as --to' },
      limit: limit(50),
      'after-id': afterId,
      'include-payload': includePayload,
      metadata: metadataCondition,
      'metadata-filter': metadataFilter,
    },
    examples: [
      'episodic episodes query --scope openclaw-mem --session-id sess-001 --limit 50 --json',
      'episodic episodes query --scope openclaw-mem --session-id sess-001 --include-payload --json',
      'episodic episodes query --scope ci --type tool.call,tool.result --from 2h',
      'episodic episodes query --scope ci --from yesterday --to today --json',
      'episodic episodes query --all-scopes --metadata source=crm --metadata "priority>=5"',
      "episodic episodes query --global --json   # the scope named global (openclaw-mem's untagged events)",
    ],
    load: episodes,
    handler: 'query',
  },
  {
    path: ['episodes', 'replay'],
    summary: "one session's events in order",
    usage:
      'episodic episodes replay SESSION_ID (--scope SCOPE | --global | --all-scopes) [options]',
    positionals: [{ name: 'SESSION_ID', required: true, description: 'the session to replay' }],
    options: {
      scope,
      global: globalScope,
      'all-scopes': allScopes,
      limit: limit(200),
      'after-id': afterId,
      'include-payload': includePayload,
    },
    examples: [
      'episodic episodes replay sess-001 --scope openclaw-mem --json',
      'episodic episodes replay sess-001 --scope openclaw-mem --include-payload --limit 500',
    ],
    load: episodes,
    handler: 'replay',
  },
  {
    path: ['episodes', 'redact'],
    summary: 'redact one event or a whole session, keeping the rows',
    usage:
      'episodic episodes redact (--event-id ID | --session-id ID) (--scope SCOPE | --global | --all-scopes --yes) [--replacement null|placeholder] [--dry-run]',
    description:
      'Sets the summary to [REDACTED], clears refs, replaces the payload with null or the string "[REDACTED]", and marks the rows redacted. The rows stay for audit continuity; the erased bytes do not survive in the database files. --dry-run lists, per scope, the events it would redact and the stored runs and snapshots it would scrub, and changes nothing; across every scope (--all-scopes) it redacts only with --yes.',
    options: {
      scope,
      global: globalScope,
      'all-scopes': allScopesChanging,
      yes: confirmAllScopes,
      'dry-run': {
        type: 'boolean',
        description: 'list what would be redacted, per scope; change nothing',
      },
      'event-id': {
        type: 'string',
        value: 'ID',
        description: 'redact this event (its id, or the first 6 or more characters of it)',
      },
      'session-id': {
        type: 'string',
        value: 'ID',
        description: 'redact every event of this session',
      },
      runs: {
        type: 'string',
        value: 'MODE',
        choices: ['secrets', 'content', 'none'],
        description:
          'also scrub the stored runs, cached tool outputs and session snapshots the events came from, first: secrets (default), content or none',
      },
      kind: redactionKind,
      replacement: {
        type: 'string',
        value: 'MODE',
        choices: ['null', 'placeholder'],
        description: 'null (no payload) or placeholder (the string "[REDACTED]", the default)',
      },
    },
    examples: [
      'episodic episodes redact --session-id sess-001 --scope openclaw-mem --replacement placeholder --json',
      'episodic episodes redact --event-id 01JH4Z5Q8K2M3N4P5Q6R7S8T9V --scope openclaw-mem --replacement null',
      'episodic episodes redact --session-id sess-001 --all-scopes --dry-run',
    ],
    load: episodesRedact,
    handler: 'redact',
  },
  {
    path: ['episodes', 'gc'],
    summary: 'delete events older than their retention',
    usage:
      'episodic episodes gc (--scope SCOPE | --global | --all-scopes --yes) [--policy TYPE=DAYS|forever]… [--now-ts-ms TIME] [--dry-run]',
    description:
      "Deletes events strictly older than their type's retention (days): conversation.user 60, conversation.assistant 90, tool.call 30, tool.result 30, ops.alert 90, ops.decision forever. The receipt has counts only (per type and per scope), never content. --dry-run counts exactly what the real run would delete. Across every scope (--all-scopes), it deletes only with --yes; --dry-run lists the counts of each scope first.",
    options: {
      scope,
      global: globalScope,
      'all-scopes': allScopesChanging,
      yes: confirmAllScopes,
      policy: {
        type: 'string',
        multiple: true,
        value: 'TYPE=DAYS',
        description:
          'override one type\'s retention (repeatable): days from 0 to 1000000, fractions allowed (0 expires every event older than now), or "forever" (also "inf")',
      },
      'now-ts-ms': {
        type: 'string',
        value: 'TIME',
        description: `"now" for the cutoffs (default: the clock; ${TIME_FORMS})`,
      },
      'dry-run': { type: 'boolean', description: 'count what would be deleted; delete nothing' },
    },
    examples: [
      'episodic episodes gc --scope openclaw-mem --json',
      'episodic episodes gc --scope ci --policy tool.result=7 --policy ops.alert=forever --dry-run',
      'episodic episodes gc --all-scopes --dry-run   # what every scope would lose; then --yes',
    ],
    load: episodes,
    handler: 'gc',
  },
  {
    path: ['runs', 'list'],
    summary: 'list runs, newest first',
    usage: 'episodic runs list [--session-id ID] [--from DATE] [--to DATE] [--limit N]',
    description:
      'Lists runs, newest first: a title (the first user input, or the task description), status, start, duration, tokens in/out summed over the model responses, model and session. Titles and tokens are read for the newest 200 runs listed. A damaged run is reported on its own line and never hides the others.',
    options: {
      'session-id': {
        type: 'string',
        value: 'ID',
        description: 'only runs of this session (a UUID, or its first 6 or more characters)',
      },
      from: fromDate,
      to: toDate,
      limit: { type: 'string', value: 'N', description: 'at most N runs (the newest)' },
    },
    examples: [
      'episodic runs list',
      'episodic runs list --from 2026-01-01 --to 2026-01-31 --json',
      'episodic runs list --session-id 6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f --store fs',
    ],
    load: runs,
    handler: 'list',
  },
  {
    path: ['runs', 'show'],
    summary: "a run's records and any damaged lines",
    usage: 'episodic runs show RUN_ID',
    positionals: [runId],
    options: {},
    examples: [
      'episodic runs show 6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f',
      'episodic runs show RUN_ID --json',
    ],
    load: runs,
    handler: 'show',
  },
  {
    path: ['runs', 'replay'],
    summary: 'replay a run (or a session’s runs) as UI events',
    usage: 'episodic runs replay (RUN_ID | --session-id ID) [--max-events N] [--max-runs N]',
    description:
      'Turns run records into UI events: the run input as a hidden user message, then the agent events in order. The newest events are kept when there are more than --max-events.',
    positionals: [
      {
        name: 'RUN_ID',
        required: false,
        description: 'the run to replay (its id, or its first 6 or more characters)',
      },
    ],
    options: {
      'session-id': {
        type: 'string',
        value: 'ID',
        description:
          "replay this session's runs, oldest first (a UUID, or its first 6 or more characters)",
      },
      'max-events': {
        type: 'string',
        value: 'N',
        description: 'keep at most N events (default 1500)',
      },
      'max-runs': {
        type: 'string',
        value: 'N',
        description: 'with --session-id, at most N runs (the newest, default 20)',
      },
    },
    examples: [
      'episodic runs replay 6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f',
      'episodic runs replay --session-id 0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e --max-events 200 --json',
    ],
    load: runs,
    handler: 'replay',
  },
  {
    path: ['runs', 'tail'],
    summary: 'the last records of a run; -f follows new ones',
    usage: 'episodic runs tail RUN_ID [-n COUNT] [-f [--until-end]]',
    description:
      'Prints the last records of a run, read from its end. With -f it keeps printing records as they are appended, until interrupted (Ctrl-C) or, with --until-end, until the run ends. With --json and -f, each new record is one more JSON line.',
    positionals: [runId],
    options: {
      count: {
        type: 'string',
        short: 'n',
        value: 'COUNT',
        description: 'how many records (default 20)',
      },
      follow: {
        type: 'boolean',
        short: 'f',
        description: 'keep printing records as they are appended',
      },
      'until-end': {
        type: 'boolean',
        description: 'with -f, stop once the run ends (a run.end record)',
      },
      'interval-ms': {
        type: 'string',
        value: 'MS',
        description: 'with -f, how often to look for new records (default 200)',
      },
    },
    examples: [
      'episodic runs tail 6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f -n 50',
      'episodic runs tail 6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f -f --until-end --store fs',
    ],
    load: runs,
    handler: 'tail',
  },
  {
    path: ['runs', 'redact'],
    summary: 'scrub a stored run in place (secrets, or all text)',
    usage: 'episodic runs redact RUN_ID [--mode secrets|content] [--kind KIND]…',
    description:
      "Rewrites the run in place so that what the secret detectors find, in every record, every damaged line and the cached full tool outputs, is replaced by [REDACTED:<rule>]; --mode content replaces all text instead. No line is added or removed, and writers may keep appending meanwhile: nothing they write is lost (records appended after the redaction started may be left for the next one). A run file's changed lines are padded to their own length behind a synced journal; in the SQLite store the rows are rewritten with secure_delete and the WAL is truncated. A task's metadata is also kept by the artifact store (the task episode's metadata): that copy is scrubbed with the run.",
    positionals: [runId],
    options: { mode: redactionMode, kind: redactionKind },
    examples: [
      'episodic runs redact 6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f --store fs',
      'episodic runs redact RUN_ID --mode content --json',
    ],
    load: runs,
    handler: 'redact',
  },
  {
    path: ['runs', 'gc'],
    summary: 'delete runs not written to for DAYS days',
    usage:
      'episodic runs gc --older-than DAYS (--scope SCOPE | --all-scopes --yes) [--session-id ID] [--now-ts-ms TIME] [--dry-run]',
    description:
      "Deletes the runs (run files, SQLite or PostgreSQL rows; a framework session of claude-agent-sdk, openai-agents or google-adk is one run) whose last record is older than DAYS days; a run whose last record cannot be read is aged by its header's started_at, and a run that has not ended is kept while it is written to. A run's scope is its header's scope (stamped by the MCP server, and by the openai-agents and google-adk adapters given a scope); runs without one are in the scope default. The receipt has counts only, never content or ids. --dry-run counts exactly what the real run would delete. Across every scope (--all-scopes), it deletes only with --yes. Runs that cannot be listed are kept and counted.",
    options: {
      'older-than': {
        type: 'string',
        value: 'DAYS',
        description:
          'delete runs whose last record is older than this many days (0 to 1000000, fractions allowed)',
      },
      scope,
      'all-scopes': allScopesChanging,
      yes: confirmAllScopes,
      'session-id': {
        type: 'string',
        value: 'ID',
        description: 'only runs of this session (a UUID, or its first 6 or more characters)',
      },
      'now-ts-ms': {
        type: 'string',
        value: 'TIME',
        description: `"now" for the cutoff (default: the clock; ${TIME_FORMS})`,
      },
      'dry-run': { type: 'boolean', description: 'count what would be deleted; delete nothing' },
    },
    examples: [
      'episodic runs gc --older-than 30 --scope default --dry-run',
      'episodic runs gc --older-than 90 --scope my-project --json',
      'episodic runs gc --older-than 30 --all-scopes --dry-run   # then --yes',
    ],
    load: runs,
    handler: 'gc',
  },
  {
    path: ['sessions', 'list'],
    summary: 'list session snapshots, newest first',
    usage: 'episodic sessions list [--limit N]',
    description:
      "Lists session snapshots, newest first: the last user message, the last activity, the episode count, and the last run's status, model and tokens in/out (read for the first 200 sessions listed).",
    options: { limit: { type: 'string', value: 'N', description: 'at most N sessions' } },
    examples: ['episodic sessions list', 'episodic sessions list --store fs --json'],
    load: sessions,
    handler: 'list',
  },
  {
    path: ['sessions', 'show'],
    summary: "a session's snapshot: revision, context and log",
    usage: 'episodic sessions show SESSION_ID [--episodes N] [--raw]',
    description:
      "Prints a session's snapshot and its newest episodes. Raw entries an import kept verbatim (Codex turn_context, Claude Code progress…), turn.usage rows and other meta records are counted, not listed (their tokens summed), unless --raw; encrypted reasoning is shown by its size, never as base64.",
    positionals: [
      {
        name: 'SESSION_ID',
        required: true,
        description: 'the session id (a UUID), or its first 6 or more characters',
      },
    ],
    options: {
      episodes: {
        type: 'string',
        value: 'N',
        description: 'how many of the newest episodes to print (default 20)',
      },
      raw: {
        type: 'boolean',
        description: 'list raw imported entries and meta records (turn.usage…) among the episodes',
      },
    },
    examples: [
      'episodic sessions show 0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e',
      'episodic sessions show SESSION_ID --json',
    ],
    load: sessions,
    handler: 'show',
  },
  {
    path: ['sessions', 'redact'],
    summary: "scrub a session's snapshot (secrets, or all text)",
    usage: 'episodic sessions redact SESSION_ID [--mode secrets|content] [--kind KIND]…',
    description:
      "Saves the snapshot again as its next revision with what the secret detectors find replaced by [REDACTED:<rule>] (--mode content: all text), so a session still holding the old revision gets a conflict instead of writing it back. The old copy does not survive in the store's files.",
    positionals: [
      {
        name: 'SESSION_ID',
        required: true,
        description: 'the session id (a UUID), or its first 6 or more characters',
      },
    ],
    options: { mode: redactionMode, kind: redactionKind },
    examples: ['episodic sessions redact 0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e'],
    load: sessions,
    handler: 'redact',
  },
  {
    path: ['sessions', 'fold'],
    summary: "fold a session's commits into a new base snapshot now",
    usage: 'episodic sessions fold SESSION_ID',
    description:
      'A session is stored as a base snapshot plus one delta per commit since; the store folds the deltas into a new base every so often. This folds them now, so the base is up to date: in store-fs, sessions/state/<id>.json is then a complete seed 001 snapshot for other readers (they read the base and not the deltas). Safe while other processes commit: a commit that lands meanwhile wins, and the fold is retried.',
    positionals: [
      {
        name: 'SESSION_ID',
        required: true,
        description: 'the session id (a UUID), or its first 6 or more characters',
      },
    ],
    options: {},
    examples: [
      'episodic sessions fold 0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e --store fs',
      'episodic sessions fold SESSION_ID --json',
    ],
    load: sessions,
    handler: 'fold',
  },
  {
    path: ['tasks', 'list'],
    summary: "the scope's task episodes, newest first",
    usage:
      'episodic tasks list [--outcome success|partial_success|failure|open]… [--from TIME] [--to TIME] [--limit N]',
    description:
      'Lists the task episodes of one scope (as an MCP server bound to it sees them) with their outcome, steps and reward. Each run is read to tell whether it is a task episode, so --from, --to and --session-id make a large home quicker to search.',
    options: {
      scope: taskScopeOption,
      outcome: {
        type: 'string',
        multiple: true,
        value: 'OUTCOME',
        choices: ['success', 'partial_success', 'failure', 'open'],
        description:
          'only these outcomes: success, partial_success, failure or open (not completed yet); repeatable or comma-separated',
      },
      from: {
        ...fromDate,
        description: `only task episodes started at or after TIME (${TIME_FORMS})`,
      },
      to: { ...toDate, description: 'only task episodes started at or before TIME' },
      'session-id': {
        type: 'string',
        value: 'ID',
        description:
          'only task episodes of this session (a UUID, or its first 6 or more characters)',
      },
      limit: limit(50, 10_000),
    },
    examples: [
      'episodic tasks list',
      'episodic tasks list --outcome failure,partial_success --from 3d',
      'episodic tasks list --scope episodic-demo --json',
    ],
    load: tasks,
    handler: 'list',
  },
  {
    path: ['tasks', 'create'],
    summary: 'start a task episode',
    usage:
      'episodic tasks create --description TEXT --domain DOMAIN --task-type TYPE [--complexity LEVEL] [options]',
    options: {
      scope: taskScopeOption,
      description: { type: 'string', value: 'TEXT', description: 'what the task is (required)' },
      domain: {
        type: 'string',
        value: 'DOMAIN',
        description: 'e.g. web-api, cli, data-processing (required)',
      },
      'task-type': {
        type: 'string',
        value: 'TYPE',
        choices: [
          'code_generation',
          'debugging',
          'refactoring',
          'testing',
          'analysis',
          'documentation',
        ],
        description:
          'code_generation, debugging, refactoring, testing, analysis or documentation (required)',
      },
      complexity: {
        type: 'string',
        value: 'LEVEL',
        choices: ['simple', 'moderate', 'complex'],
        description: 'simple, moderate (default) or complex',
      },
      language: { type: 'string', value: 'NAME', description: 'the programming language' },
      framework: { type: 'string', value: 'NAME', description: 'the framework' },
      tag: { type: 'string', multiple: true, value: 'TAG', description: 'a tag (repeatable)' },
      'metadata-json': {
        type: 'string',
        value: 'JSON',
        description: 'metadata for filtering and access control (at most 10 keys)',
      },
      'session-id': {
        type: 'string',
        value: 'ID',
        description: 'the session the task belongs to (a UUID, or its first 6 or more characters)',
      },
    },
    examples: [
      'episodic tasks create --description "Add rate limiting" --domain web-api --task-type code_generation --language rust --tag api',
      'episodic tasks create --description "Fix flaky test" --domain ci --task-type debugging --metadata-json \'{"team":"infra"}\' --json',
    ],
    load: tasks,
    handler: 'create',
  },
  {
    path: ['tasks', 'step'],
    summary: 'record one step of a task episode',
    usage:
      'episodic tasks step EPISODE_ID --step N --tool NAME --action TEXT [--result success|error|timeout] [options]',
    positionals: [taskId],
    options: {
      scope: taskScopeOption,
      step: {
        type: 'string',
        value: 'N',
        description: 'the step number, above the last one (required)',
      },
      tool: { type: 'string', value: 'NAME', description: 'the tool that acted (required)' },
      action: { type: 'string', value: 'TEXT', description: 'what it did (required)' },
      'parameters-json': {
        type: 'string',
        value: 'JSON',
        description: 'the parameters, a JSON object',
      },
      result: {
        type: 'string',
        value: 'TYPE',
        choices: ['success', 'error', 'timeout'],
        description: 'success, error or timeout (leave out while it runs)',
      },
      output: { type: 'string', value: 'TEXT', description: 'with --result success: the output' },
      message: {
        type: 'string',
        value: 'TEXT',
        description: 'with --result error: the error message',
      },
      'latency-ms': { type: 'string', value: 'MS', description: 'how long the step took' },
    },
    examples: [
      'episodic tasks step EPISODE_ID --step 1 --tool architect --action "Design the limiter" --result success --output "Token bucket" --latency-ms 100',
      'episodic tasks step EPISODE_ID --step 2 --tool test_runner --action "Run tests" --result error --message "2 failures"',
    ],
    load: tasks,
    handler: 'step',
  },
  {
    path: ['tasks', 'complete'],
    summary: 'complete a task episode and learn from it',
    usage: 'episodic tasks complete EPISODE_ID --outcome success|partial_success|failure [options]',
    description:
      'Records the outcome and runs the learning cycle: the reward, a reflection and patterns, stored as artifacts.',
    positionals: [taskId],
    options: {
      scope: taskScopeOption,
      outcome: {
        type: 'string',
        value: 'TYPE',
        choices: ['success', 'partial_success', 'failure'],
        description: 'success, partial_success or failure (required)',
      },
      verdict: {
        type: 'string',
        value: 'TEXT',
        description: 'success and partial_success: the verdict',
      },
      artifact: {
        type: 'string',
        multiple: true,
        value: 'NAME',
        description: 'success: an artifact created (repeatable)',
      },
      completed: {
        type: 'string',
        multiple: true,
        value: 'ITEM',
        description: 'partial_success: an item completed (repeatable)',
      },
      failed: {
        type: 'string',
        multiple: true,
        value: 'ITEM',
        description: 'partial_success: an item that failed (repeatable)',
      },
      reason: { type: 'string', value: 'TEXT', description: 'failure: why' },
      'error-details': { type: 'string', value: 'TEXT', description: 'failure: details' },
    },
    examples: [
      'episodic tasks complete EPISODE_ID --outcome success --verdict "Implemented and tested" --artifact limiter.rs --artifact limiter_tests.rs',
      'episodic tasks complete EPISODE_ID --outcome failure --reason "Upstream API is down" --json',
    ],
    load: tasks,
    handler: 'complete',
  },
  {
    path: ['tasks', 'show'],
    summary: 'a task episode with its outcome, reward and reflection',
    usage: 'episodic tasks show EPISODE_ID',
    positionals: [taskId],
    options: {
      scope: taskScopeOption,
    },
    examples: ['episodic tasks show EPISODE_ID', 'episodic tasks show EPISODE_ID --json'],
    load: tasks,
    handler: 'show',
  },
  {
    path: ['tasks', 'timeline'],
    summary: "a task episode's steps in order",
    usage: 'episodic tasks timeline EPISODE_ID [--offset N] [--limit N]',
    positionals: [taskId],
    options: {
      scope: taskScopeOption,
      offset: {
        type: 'string',
        value: 'N',
        description: 'skip the first N steps (the next_offset of the previous page)',
      },
      limit: limit(1000, 1000),
    },
    examples: [
      'episodic tasks timeline EPISODE_ID',
      'episodic tasks timeline EPISODE_ID --offset 100 --limit 100',
      'episodic tasks timeline EPISODE_ID --json',
    ],
    load: tasks,
    handler: 'timeline',
  },
  {
    path: ['tasks', 'delete'],
    summary: 'delete a task episode and its artifact associations',
    usage: 'episodic tasks delete EPISODE_ID --yes',
    positionals: [taskId],
    options: {
      scope: taskScopeOption,
      yes: { type: 'boolean', short: 'y', description: 'confirm the deletion (required)' },
    },
    examples: ['episodic tasks delete EPISODE_ID --yes'],
    load: tasks,
    handler: 'remove',
  },
  {
    path: ['patterns', 'search'],
    summary: 'search learned patterns (and other artifacts) by words and metadata',
    usage:
      'episodic patterns search [--query TEXT] [--type TYPE]… [--metadata COND]… [--task EPISODE_ID] [options]',
    description:
      'Patterns are learned when task episodes complete. A metadata filter matches a pattern when ONE of the task episodes it came from satisfies the whole filter. Without --query, patterns come in key order, paged with --after-key; with --query, the best --limit matches come ranked (BM25), each with a snippet.',
    options: {
      scope: taskScopeOption,
      type: {
        type: 'string',
        multiple: true,
        value: 'TYPE',
        choices: ['tool_sequence', 'decision_point', 'error_recovery', 'context'],
        description:
          'tool_sequence, decision_point, error_recovery or context (repeatable, or comma-separated)',
      },
      metadata: metadataCondition,
      'metadata-filter': metadataFilter,
      task: {
        type: 'string',
        value: 'EPISODE_ID',
        description:
          'only patterns learned from this task episode (its id, or its first 6 or more characters)',
      },
      kind: {
        type: 'string',
        value: 'KIND',
        choices: ['pattern', 'reflection'],
        description: 'the artifact kind: pattern (default) or reflection',
      },
      limit: limit(50),
      'after-key': {
        type: 'string',
        value: 'KEY',
        description: 'continue after this key (the next_key of the previous page)',
      },
      query: {
        type: 'string',
        value: 'TEXT',
        description:
          'only patterns whose text (tools, conditions, errors, context) holds every word and "quoted phrase" of TEXT, best match first (not with --after-key)',
      },
    },
    examples: [
      'episodic patterns search --type tool_sequence',
      'episodic patterns search --query "read_file edit_file" --json',
      'episodic patterns search --metadata team=infra --metadata "priority>=3" --json',
      'episodic patterns search --kind reflection --task EPISODE_ID',
    ],
    load: patterns,
    handler: 'search',
  },
  {
    path: ['patterns', 'show'],
    summary: 'one learned pattern: its content, tasks and metadata',
    usage: 'episodic patterns show KEY',
    description:
      'Shows one pattern (or any artifact: a reflection, a checkpoint summary) of the scope by its key, as patterns search prints it, with the task episodes it was learned from and its effective metadata.',
    positionals: [
      { name: 'KEY', required: true, description: 'the key (the KEY column of patterns search)' },
    ],
    options: { scope: taskScopeOption },
    examples: [
      'episodic patterns show tool_sequence:651c551c8b261de85d2d182223b0c924',
      'episodic patterns show error_recovery:3132f1a8738f2a735a576b06c07f2749 --scope my-project --json',
    ],
    load: patterns,
    handler: 'show',
  },
  {
    path: ['scopes', 'list'],
    summary: 'every scope with its events, sessions, task episodes and patterns',
    usage: 'episodic scopes list [--no-tasks]',
    description:
      'Lists the scopes the home holds data in: ledger events and sessions, the newest event, task episodes and learned artifacts. Counting task episodes reads every run once; --no-tasks leaves that out on a large home.',
    options: {
      'no-tasks': {
        type: 'boolean',
        description: 'do not count task episodes (skips reading every run)',
      },
    },
    examples: ['episodic scopes list', 'episodic scopes list --no-tasks --json'],
    load: scopes,
    handler: 'list',
  },
  {
    path: ['search'],
    summary:
      'find ledger events (or, with --runs, run records) by the words of their text, best first',
    usage:
      'episodic search TEXT (--scope SCOPE | --global | --all-scopes | --runs [--run RUN_ID]) [--session-id ID] [--agent-id ID] [--type TYPE]… [--from TIME] [--to TIME] [--limit N] [--cursor CURSOR]',
    description:
      "Full-text search over the ledger: the events of the scope whose summary, payload text or refs hold every word and \"quoted phrase\" of TEXT (case and accents folded; nothing else is syntax), ranked best first (BM25), each with a snippet whose matched words are shown in bold (between « and » when the output is not a terminal, and always in --json). Filters are conditions of the search, never applied after it. When more hits match than --limit, the last line (and the receipt's next_cursor) gives the --cursor of the next page. A SQLite database (a file home keeps its ledger there) indexes new events at the first search after them; PostgreSQL indexes each event as it is appended. A store without a search index answers UNSUPPORTED (use episodes query). With --runs it searches run records instead (message and tool text, tool outputs, task steps and completions, errors; not scoped, like runs list): --run, --session-id (the run header's session), --type (record types such as tool.output or agent.event), --from and --to (the record's time) narrow it; the table shows time, run, position, type and snippet. Runs kept as files (a file home with the fs store) have no search index yet and answer UNSUPPORTED.",
    positionals: [
      {
        name: 'TEXT',
        required: true,
        description: 'the words and "quoted phrases" to find; every one must match',
      },
    ],
    options: {
      scope,
      global: globalScope,
      'all-scopes': allScopes,
      'session-id': {
        type: 'string',
        value: 'ID',
        description: 'only this session (with --runs: runs whose header names it)',
      },
      'agent-id': { type: 'string', value: 'ID', description: 'only events of this agent' },
      type: {
        type: 'string',
        multiple: true,
        value: 'TYPE',
        choices: [...LEDGER_EVENT_TYPES, ...SEARCHED_RUN_RECORD_TYPES],
        description: `only these types: ledger event types (${LEDGER_EVENT_TYPES.join(', ')}), or with --runs run record types (tool.output, agent.event, llm.response, run.error…); repeat the option or separate them with commas`,
      },
      from: fromTime,
      to: toTime,
      limit: limit(20, 100),
      cursor: {
        type: 'string',
        value: 'CURSOR',
        description: 'the next page: the next_cursor the previous page printed (the same search)',
      },
      metadata: metadataCondition,
      'metadata-filter': metadataFilter,
      runs: {
        type: 'boolean',
        description: 'search run records instead of ledger events (no scope options)',
      },
      run: {
        type: 'string',
        value: 'RUN_ID',
        description: 'with --runs: only this run (an id or a unique prefix of 6+ characters)',
      },
    },
    examples: [
      'episodic search "rate limit" --scope my-project',
      'episodic search \'deploy "staging db"\' --scope ci --type tool.result --from 1w --json',
      'episodic search timeout --all-scopes --agent-id planner --limit 50',
      'episodic search "permission denied" --runs --type tool.output --from 1d',
    ],
    load: search,
    handler: 'search',
  },
  {
    path: ['mcp'],
    summary: 'start the MCP server (stdio, or Streamable HTTP with --http)',
    usage: 'episodic mcp [--scope SCOPE] [--http PORT [--host HOST] [--tokens FILE]] [options]',
    description:
      'Serves the task-episode lifecycle tools and the read-only history tools, bound to one scope, over stdio (for an MCP client that spawns it) or over Streamable HTTP with bearer tokens. On stdio, stdout carries only JSON-RPC; logs go to stderr. It runs until the client disconnects (stdio) or until interrupted (Ctrl-C).',
    options: {
      scope: {
        ...scope,
        description: 'the scope the server is bound to (default: $EPISODIC_SCOPE, else default)',
      },
      policy: {
        type: 'string',
        value: 'JSON',
        description:
          'an access policy, e.g. \'{"required":{"tenant":"acme"}}\' ($EPISODIC_MCP_POLICY)',
      },
      http: {
        type: 'string',
        value: 'PORT',
        description: 'serve Streamable HTTP on PORT (0: any free port) instead of stdio',
      },
      host: {
        type: 'string',
        value: 'HOST',
        description: 'with --http, the address to bind (default 127.0.0.1)',
      },
      path: {
        type: 'string',
        value: 'PATH',
        description: 'with --http, the endpoint path (default /mcp)',
      },
      tokens: {
        type: 'string',
        value: 'FILE',
        description:
          'with --http, a bearer tokens file ($EPISODIC_MCP_TOKENS_FILE); or set EPISODIC_MCP_TOKEN for one token bound to --scope',
      },
      'allowed-hosts': {
        type: 'string',
        value: 'LIST',
        description: 'with --http, comma-separated Host names to accept (default: localhost names)',
      },
      'allowed-origins': {
        type: 'string',
        value: 'LIST',
        description: 'with --http, comma-separated browser Origin host names to accept',
      },
    },
    examples: [
      'episodic mcp --scope my-project',
      'EPISODIC_MCP_TOKEN=$(openssl rand -hex 24) episodic mcp --scope my-project --http 8765',
      '# in an MCP client config: { "command": "episodic", "args": ["mcp", "--scope", "my-project"] }',
    ],
    load: mcp,
    handler: 'mcp',
  },
  {
    path: ['ui'],
    summary: 'browse runs, sessions, task episodes and the ledger in a local, read-only web app',
    usage:
      'episodic ui [--port N] [--host HOST] [--no-open] [--home DIR] [--db PATH] [--store fs|sqlite]',
    description:
      "Serves a web app over the same stores as every other command and prints its URL, which carries a random token (EPISODIC_UI_TOKEN fixes it). Views: runs and sessions, a session's timeline (turns, boundaries, checkpoints, forks, failed turns), a run's records with tool calls paired, each model input's assembly manifest, task episodes with their reward, the ledger and artifacts; a running run updates live. It binds 127.0.0.1 by default, refuses requests whose Host or Origin is not this machine, and has no write action. It runs until interrupted (Ctrl-C).",
    options: {
      port: {
        type: 'string',
        value: 'N',
        description: 'the port to listen on (default 0: any free port)',
      },
      host: {
        type: 'string',
        value: 'HOST',
        description:
          'the address to bind (default 127.0.0.1); another address lets other machines reach it (the token still guards it)',
      },
      'no-open': {
        type: 'boolean',
        description: 'do not open a browser (it opens only when stdout is a terminal)',
      },
    },
    examples: [
      'episodic ui',
      'episodic ui --home apps/demo/.episodic-demo --store fs',
      'episodic ui --port 8765 --no-open',
      'episodic ui --db ./agent.db --json   # one JSON line with the URL, then it serves',
    ],
    load: ui,
    handler: 'ui',
  },
  {
    path: ['doctor'],
    summary: 'verify run files, snapshots and the database; --fix repairs them',
    usage: 'episodic doctor [--fix]',
    description:
      'Reads every run file, session snapshot and the database, and reports each damaged line and file. --fix moves damaged fragments into <home>/quarantine/<time>/ (with a manifest), rewrites each damaged run file atomically with every readable record kept, and repairs torn tails. Run it while no agent is writing. Exits 1 while problems remain.',
    options: {
      fix: { type: 'boolean', description: 'quarantine damaged fragments and repair the files' },
    },
    examples: [
      'episodic doctor',
      'episodic doctor --fix',
      'episodic doctor --home ./agent-data --json',
    ],
    load: doctor,
    handler: 'doctor',
  },
  {
    path: ['verify'],
    summary: 'check that the history was not changed outside Episodic (the hash chains)',
    usage:
      'episodic verify [--runs] [--ledger] [--scope SCOPE | --global | --all-scopes] [--run RUN_ID] [--session-id ID] [--require-chain] [--anchors FILE… [--public-key KEY]]',
    description:
      'Verifies the hash chains of the home (docs/design/verify.md): every run and the erasure log, and the ledger sessions of the scope given (--scope, --global or --all-scopes; without one the ledger is not verified, and a note says so). Names each entry that was altered, inserted, deleted or reordered outside Episodic (file and line, or table and row), and tells what Episodic itself redacted or collected. Prints one line per stream with a finding and a summary line. Exits 0 when no finding is an error, 1 when one is (the --json receipt is then ok: false with code CORRUPT_DATA and the report under details), 2 on bad input. A home whose stores do not chain (no "chain": true in episodic-home.json) says "no chain" and exits 0, or 1 with --require-chain. With --anchors FILE (repeatable, checked oldest first) it also checks the signature of each file (against --public-key when given, else the key in the file) and every anchored stream: the same head (verified), a different one (anchor-mismatch: rewritten since the anchor), gone without a collect erasure (deleted), gone with one (collected); a failing signature or an anchor-mismatch exits 1, an unreadable anchor file or bad key 2. Read-only: nothing is created or changed.',
    options: {
      runs: { type: 'boolean', description: 'verify the runs (and the erasure log) only' },
      ledger: {
        type: 'boolean',
        description: 'verify the ledger only (needs --scope, --global or --all-scopes)',
      },
      scope: { ...scope, description: 'verify the ledger sessions of this scope too' },
      global: {
        type: 'boolean',
        description: 'verify the ledger sessions of the scope named global (as --scope global)',
      },
      'all-scopes': { type: 'boolean', description: 'verify the ledger sessions of every scope' },
      run: {
        type: 'string',
        value: 'RUN_ID',
        description: 'only this run (an id or a unique prefix of 6+ characters)',
      },
      'session-id': {
        type: 'string',
        value: 'ID',
        description: 'only this ledger session (with a scope option)',
      },
      'require-chain': {
        type: 'boolean',
        description:
          'exit 1 when a part asked for is not chained, or holds entries written before chaining',
      },
      anchors: {
        type: 'string',
        multiple: true,
        value: 'FILE',
        description:
          'check the home against this anchor file too (repeatable; "anchors create" writes them): a rewritten, deleted or collected anchored stream is named',
      },
      'public-key': {
        type: 'string',
        value: 'KEY',
        description:
          'check the anchor files\' signatures against this public key (what "anchors keygen" printed), not the key each file names',
      },
    },
    examples: [
      'episodic verify',
      'episodic verify --scope my-project',
      'episodic verify --all-scopes --require-chain --json',
      'episodic verify --run 8f1d7b7a',
      'episodic verify --all-scopes --anchors /backup/anchors/2026-11-29.json --public-key MCowBQYDK2VwAyEA…',
    ],
    load: verify,
    handler: 'verify',
  },
  {
    path: ['anchors', 'keygen'],
    summary: 'make an Ed25519 key for signing anchors (PKCS#8 PEM, mode 0600)',
    usage: 'episodic anchors keygen --out FILE',
    description:
      'Writes a new Ed25519 private key to FILE (PKCS#8 PEM, mode 0600; an existing file is never overwritten) and prints its public key (SPKI, base64url) and fingerprint (key id). Keep the key outside the home: whoever holds it can sign anchors. Give the public key to "episodic verify --public-key" to check anchor files against it.',
    options: {
      out: { type: 'string', value: 'FILE', description: 'the key file to create' },
    },
    examples: ['episodic anchors keygen --out ~/.config/episodic/anchor.pem'],
    load: anchors,
    handler: 'keygen',
  },
  {
    path: ['anchors', 'create'],
    summary: "sign the current heads of the home's chained streams into an anchor file",
    usage:
      'episodic anchors create --key FILE --out FILE [--runs] [--ledger] [--scope SCOPE | --global | --all-scopes]',
    description:
      'Verifies the home, then signs the head of every chained run, of the erasure log and, with --scope, --global or --all-scopes, of every ledger session of that scope into an episodic.anchors.v1 file (streams named by random keys only: the file names no run, session or scope). Sessions are not chained yet and are not anchored. A home that fails verification, or has nothing chained, is not anchored (exit 1); a key file group or others may read is refused (exit 2, chmod 600 it); FILE is never overwritten. Keep anchor files outside the home, and check the home later with "episodic verify --anchors FILE". Reads the home only (its episodic-home.json gains a random home_key on the first anchor).',
    options: {
      key: {
        type: 'string',
        value: 'FILE',
        description: 'the private key "anchors keygen" wrote (mode 0600)',
      },
      out: { type: 'string', value: 'FILE', description: 'the anchor file to create' },
      runs: { type: 'boolean', description: 'anchor the runs (and the erasure log) only' },
      ledger: {
        type: 'boolean',
        description: 'anchor the ledger only (needs --scope, --global or --all-scopes)',
      },
      scope: { ...scope, description: 'anchor the ledger sessions of this scope too' },
      global: {
        type: 'boolean',
        description: 'anchor the ledger sessions of the scope named global (as --scope global)',
      },
      'all-scopes': { type: 'boolean', description: 'anchor the ledger sessions of every scope' },
    },
    examples: [
      'episodic anchors create --key ~/.config/episodic/anchor.pem --out /backup/anchors/$(date -u +%F).json --all-scopes',
      'episodic anchors create --key anchor.pem --out anchors.json --runs',
    ],
    load: anchors,
    handler: 'create',
  },
  {
    path: ['export'],
    summary: 'export a session or a set of runs as JSONL, or as OpenTelemetry traces',
    usage:
      'episodic export (--session-id ID | --run-id ID… | --from DATE --to DATE | --all) [--scope SCOPE | --global | --all-scopes] [-o FILE | --otel FILE [--otel-content]]',
    description:
      'Writes one JSON object per line: a header, session snapshots, run records and, with --scope (--global: the scope named global) or --all-scopes, the ledger events of the exported sessions. The output is deterministic: exporting, importing into an empty home and exporting again gives identical bytes. With --otel FILE, writes the selected runs instead as OTLP JSON traces following the OpenTelemetry GenAI conventions: an invoke_agent span per run with a chat span per model call and an execute_tool span per tool call (model, token usage, finish reasons, tool names and call ids); message content, tool arguments and results only with --otel-content. Any OTLP collector or tracing backend reads the file.',
    options: {
      'session-id': {
        type: 'string',
        value: 'ID',
        description:
          'a session: its snapshot and every run of the session (a UUID or its first 6 or more characters; any other text is a ledger session id)',
      },
      'run-id': {
        type: 'string',
        multiple: true,
        value: 'ID',
        description: 'a run, or a unique prefix of its id (repeatable)',
      },
      from: fromDate,
      to: toDate,
      all: { type: 'boolean', description: 'every session and run' },
      scope: {
        ...scope,
        description: 'also export the ledger events of the exported sessions in SCOPE',
      },
      global: {
        type: 'boolean',
        description:
          'also export their ledger events in the scope named global (the same as --scope global)',
      },
      'all-scopes': {
        type: 'boolean',
        description: 'also export their ledger events in every scope',
      },
      output: {
        type: 'string',
        short: 'o',
        value: 'FILE',
        description: 'write to FILE (atomically) instead of stdout',
      },
      otel: {
        type: 'string',
        value: 'FILE',
        description:
          'write the runs as OpenTelemetry traces (OTLP JSON) to FILE instead ("-" for stdout)',
      },
      'otel-content': {
        type: 'boolean',
        description:
          'with --otel: also record message content, tool arguments and results (may hold personal data)',
      },
      'service-name': {
        type: 'string',
        value: 'NAME',
        description: 'with --otel: the service.name of the traces (default: episodic)',
      },
    },
    examples: [
      'episodic export --session-id 0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e -o session.jsonl',
      'episodic export --from 2026-01-01 --to 2026-01-31 --scope my-project > january.jsonl',
      'episodic export --all --all-scopes -o backup.jsonl --json',
      'episodic export --session-id 0b7d9c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e --otel traces.json',
      'episodic export --from 2026-01-01 --otel - --otel-content | curl -X POST -H "Content-Type: application/json" --data-binary @- http://localhost:4318/v1/traces',
    ],
    load: transfer,
    handler: 'exportCommand',
  },
  {
    path: ['import'],
    summary: 'import an Episodic export, or another agent’s transcripts',
    usage: 'episodic import FILE [--dry-run]   (or: episodic import claude-code|codex|openai PATH)',
    description:
      'Imports a JSONL file written by "episodic export". Validates the whole file and tries it in empty scratch stores of the home\'s kind before writing (--dry-run too, so it fails when the import would); a write that fails anyway removes what it created. Objects already present with the same content are skipped, so an interrupted import can be run again; different content under the same id is a conflict and nothing is written. To import another agent\'s transcripts, name the format first: "episodic import claude-code PATH", "episodic import codex PATH", "episodic import openai FILE" (an export file named like a format is given as ./claude-code).',
    positionals: [{ name: 'FILE', required: true, description: 'the export ("-" for stdin)' }],
    options: {
      'dry-run': { type: 'boolean', description: 'validate and count; write nothing' },
    },
    examples: [
      'episodic import session.jsonl --home ./restored',
      'episodic import - --dry-run --json < backup.jsonl',
    ],
    load: transfer,
    handler: 'importCommand',
  },
  {
    path: ['migrate'],
    summary: 'copy this home into a PostgreSQL database',
    usage: 'episodic migrate --to postgres://USER@HOST/DB[?schema=NAME]',
    description:
      'Copies everything this home holds into one schema of a PostgreSQL database (@episodic/store-postgres): session snapshots, runs (from the database or from run files), ledger events exactly as stored (ids, times, positions, redactions), session heads, artifacts with their associations and times, and episode metadata. Objects already there with the same content are skipped, so an interrupted migration can be run again; other content under the same id stops it with a conflict. Damaged run lines cannot be copied and are reported. Afterwards use the URL as --db (or $EPISODIC_DB). Put the password in $PGPASSWORD or ~/.pgpass rather than on the command line; it never appears in the output.',
    options: {
      to: {
        type: 'string',
        value: 'URL',
        description:
          'the PostgreSQL database (postgres:// or postgresql://; ?schema=NAME, default episodic); $EPISODIC_MIGRATE_TO',
      },
    },
    examples: [
      'episodic migrate --to postgres://episodic@db.internal/episodic',
      'PGPASSWORD=… episodic migrate --home ./agent-data --to "postgres://agent@localhost/team?schema=agents" --json',
    ],
    load: migrate,
    handler: 'migrate',
  },
  importTranscriptCommand(
    'claude-code',
    'import Claude Code session transcripts (a .jsonl file or a folder of them)',
    'PATH',
    'a session file (~/.claude/projects/<project>/<session>.jsonl) or a folder: every .jsonl below it',
    'Reads Claude Code session files (1.x and 2.x): user and assistant entries become messages, tool calls (tool_use) and their outputs (tool_result), reasoning (thinking) and images; the parentUuid chain, through progress, attachment and system entries, gives the active path, while abandoned branches, progress, snapshots and other entries are kept whole as import.raw episodes; a compaction becomes a checkpoint boundary with its summary, and so does the session summary; each sub-agent thread (inline sidechains or <session>/subagents/agent-*.jsonl) becomes a session of its own that names its parent session; summaries title the session.',
    [
      'episodic import claude-code ~/.claude/projects/-home-me-acme-api',
      'episodic import claude-code ~/.claude/projects/-home-me-acme-api/7f3c2b1a-5d4e-4c3b-9a8f-1e2d3c4b5a60.jsonl --scope acme --json',
    ],
  ),
  importTranscriptCommand(
    'codex',
    'import Codex CLI rollout files (a .jsonl file or a folder of them)',
    'PATH',
    'a rollout file (~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl) or a folder: every .jsonl below it',
    'Reads Codex CLI and Desktop rollouts: response items (messages, reasoning, function, shell and custom tool calls and their outputs) are kept as the model saw them; a user_message event without a matching user item (Codex Desktop) becomes the user message; token_count events become usage; turn_context, event_msg and session_meta lines are kept whole as import.raw episodes; a compaction becomes a checkpoint boundary. Older rollouts (a bare header line, then bare items) are read too.',
    [
      'episodic import codex ~/.codex/sessions/2025/10/29/rollout-2025-10-29T00-59-38-0199a2f4-6b1c-7d22-9e31-4c5a6b7c8d9e.jsonl',
      'episodic import codex ~/.codex/sessions --dry-run',
    ],
  ),
  importTranscriptCommand(
    'openai',
    'import OpenAI Responses items or Chat Completions messages (JSON or JSONL)',
    'FILE',
    'a .json or .jsonl file ("-" for stdin), or a folder of them',
    "Reads a JSON array of Responses input items or Chat Completions messages, a request or response body (input, messages, output, choices), or JSONL with one item or message per line, or one conversation per line (fine-tuning and batch files). Entries without a time get --time (default: the file's modification time). The session id is derived from the content, so an edited file imports as a new session.",
    [
      'episodic import openai conversation.json',
      'episodic import openai train.jsonl --time 2025-03-01 --scope evals',
      'cat messages.json | episodic import openai - --json',
    ],
  ),
  {
    path: ['completion'],
    summary: 'print a shell completion script (bash, zsh or fish)',
    usage: 'episodic completion bash|zsh|fish',
    description:
      'Prints a completion script for your shell, generated from the same command table as this help, so it offers every command, option and fixed value. Load it in the current shell, or install it where your shell looks for completions.',
    positionals: [
      {
        name: 'SHELL',
        required: true,
        description: 'bash, zsh or fish',
        choices: ['bash', 'zsh', 'fish'],
      },
    ],
    options: {},
    examples: [
      'source <(episodic completion bash)                 # bash, this shell; add it to ~/.bashrc to keep it',
      'episodic completion zsh > "$fpath[1]/_episodic"   # zsh (then restart the shell)',
      'episodic completion fish > ~/.config/fish/completions/episodic.fish',
    ],
    load: completion,
    handler: 'completion',
  },
];
