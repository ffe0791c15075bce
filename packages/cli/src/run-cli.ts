import { VERSION } from './version.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const USAGE = `Usage: episodic <command> [options]

Episodic: a trustworthy memory of what happened, for AI agents.

Options:
  --version   print the version
  --help      print this help

Examples:
  episodic --version
`;

/** Runs the CLI with `argv` (without `node` and the script) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [first] = argv;
  if (first === '--version' || first === '-v') {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  io.stderr(
    `episodic: unknown command ${JSON.stringify(first)}. Run "episodic --help" to see the commands.\n`,
  );
  return 2;
}
