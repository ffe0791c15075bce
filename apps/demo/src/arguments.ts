import { DEFAULT_MODEL } from './models/select-model.js';
import { UsageError } from './usage-error.js';

/** The demo's subcommands. */
export type DemoCommand = 'run' | 'chat' | 'resume' | 'verify' | 'help' | 'version';

/** The parsed command line. */
export interface DemoArguments {
  readonly command: DemoCommand;
  /** `--home DIR`, or null for the default home. */
  readonly home: string | null;
  /** `--model`: `built-in` or `openai:<name>`. */
  readonly model: string;
  readonly json: boolean;
  /** `--ai-sdk`: run T1 through the Vercel AI SDK and `@episodic/ai-sdk`. */
  readonly aiSdk: boolean;
  /** `resume --session ID`. */
  readonly session: string | null;
  /** `resume --input TEXT`. */
  readonly input: string | null;
}

const COMMANDS = new Set(['run', 'chat', 'resume', 'verify', 'help']);
const VALUE_FLAGS = new Set(['--home', '--model', '--session', '--input']);

/** Parses the demo's arguments (after `node main.js`); bad ones are a `UsageError`. */
export function parseArguments(argv: readonly string[]): DemoArguments {
  let command: DemoCommand | null = null;
  const values = new Map<string, string>();
  let json = false;
  let aiSdk = false;
  let help = false;
  let version = false;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] as string;
    if (argument === '--help' || argument === '-h') {
      help = true;
      continue;
    }
    if (argument === '--version' || argument === '-v') {
      version = true;
      continue;
    }
    if (argument === '--json') {
      json = true;
      continue;
    }
    if (argument === '--ai-sdk') {
      aiSdk = true;
      continue;
    }
    const equals = argument.indexOf('=');
    const flag = argument.startsWith('--') && equals > 0 ? argument.slice(0, equals) : argument;
    if (VALUE_FLAGS.has(flag)) {
      const value = flag === argument ? argv[++index] : argument.slice(equals + 1);
      if (value === undefined || value === '' || (flag === argument && value.startsWith('--'))) {
        throw new UsageError(
          `${flag} needs a value, e.g. ${flag === '--home' ? '--home ./demo-home' : flag === '--model' ? '--model openai:gpt-4o-mini' : `${flag} VALUE`}.`,
        );
      }
      if (values.has(flag)) throw new UsageError(`${flag} was given twice.`);
      values.set(flag, value);
      continue;
    }
    if (argument.startsWith('-')) {
      throw new UsageError(`Unknown option ${argument}.`);
    }
    if (command !== null)
      throw new UsageError(`Unexpected argument "${argument}" after the command "${command}".`);
    if (!COMMANDS.has(argument)) {
      throw new UsageError(
        `Unknown command "${argument}": use chat, resume or verify, or no command to run the demo.`,
      );
    }
    command = argument as DemoCommand;
  }
  const resolved: DemoCommand = help ? 'help' : version ? 'version' : (command ?? 'run');
  const session = values.get('--session') ?? null;
  const input = values.get('--input') ?? null;
  if (resolved !== 'resume' && (session !== null || input !== null)) {
    throw new UsageError(
      '--session and --input belong to the resume command: pnpm demo resume --session ID --input TEXT.',
    );
  }
  if (resolved === 'resume' && session === null) {
    throw new UsageError('resume needs --session ID (the session id the demo printed).');
  }
  if (resolved === 'verify' && values.has('--model')) {
    throw new UsageError('verify checks the files only and takes no --model.');
  }
  if (aiSdk && resolved !== 'run') {
    throw new UsageError('--ai-sdk belongs to the scripted demo (no command): pnpm demo --ai-sdk.');
  }
  if (resolved === 'chat' && json) {
    throw new UsageError('chat is interactive and has no --json output.');
  }
  return {
    command: resolved,
    home: values.get('--home') ?? null,
    model: values.get('--model') ?? DEFAULT_MODEL,
    json,
    aiSdk,
    session,
    input,
  };
}

/** The `--help` text. */
export function usage(defaultHome: string): string {
  return `Usage: pnpm demo [command] [options]

A small, real agent that shows every Episodic package working together. With no command it
runs a scripted conversation with a built-in deterministic model (offline, no configuration):
real tools over a sample workspace, a tool output over 8,000 characters, a turn that hits the
step limit, an interrupted turn, a budget restart and compaction, a failed turn, a resume in a
fresh process and a fork. It records every run (store-fs), indexes the ledger (SQLite), tracks
the task over MCP (stdio), prints where everything is, and checks its own results.

Commands:
  (none)    run the scripted demo; exits 1 if one of its checks fails
  chat      talk to the same agent interactively: /interrupt, /fork, /timeline, /help, /quit
  resume    continue a demo session in this process: --session ID [--input TEXT]
  verify    check the files of the last demo run again (after you changed or damaged them)

Options:
  --home DIR        the demo home (default: ${defaultHome}).
                    It is deleted and recreated on each run; a folder the demo did not create
                    is refused unless empty. Your own ~/.episodic is never touched.
  --model MODEL     built-in (default, offline) or openai:<name> for any OpenAI-compatible
                    Chat Completions endpoint: set OPENAI_API_KEY, and OPENAI_BASE_URL for an
                    endpoint other than https://api.openai.com/v1
  --json            print one JSON document on stdout (the report) and nothing else
  --ai-sdk          run T1 through the Vercel AI SDK: generateText with the model wrapped by
                    @episodic/ai-sdk's middleware (offline: the AI SDK's mock model answering
                    with the built-in one), recorded as a run and committed to the same session
  -h, --help        show this help
  -v, --version     print the version

Examples:
  pnpm demo
  pnpm demo --json > report.json
  pnpm demo --home /tmp/episodic-demo
  pnpm demo --ai-sdk
  OPENAI_API_KEY=sk-… pnpm demo --model openai:gpt-4o-mini
  OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_API_KEY=local pnpm demo --model openai:llama3.1
  pnpm demo chat
  pnpm demo resume --session SESSION_ID --input "What was the invoice total again?"
  pnpm demo verify

Exit codes: 0 success, 1 a check or the demo failed, 2 bad options or missing configuration.
`;
}
