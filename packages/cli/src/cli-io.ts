import { readFileSync } from 'node:fs';
import { rawProcessArguments } from '@episodic/home';
import { decodeUtf8 } from './utf8-text.js';

/** Where the CLI reads and writes: the process's streams, or test doubles. */
export interface CliIo {
  /** Writes to standard output (results, receipts). */
  stdout: (text: string) => void;
  /** Writes to standard error (errors, progress, notes). */
  stderr: (text: string) => void;
  /** True when standard output is a terminal (colour, tables sized for a person). @default false */
  stdoutIsTTY?: boolean;
  /** The terminal's width in columns, when stdout is a terminal. */
  stdoutColumns?: number | undefined;
  /** True when standard error is a terminal (progress lines). @default false */
  stderrIsTTY?: boolean;
  /** The environment (`EPISODIC_HOME`, `NO_COLOR`, …). @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Reads all of standard input (for `-` file arguments); bytes that are not UTF-8 are an error. */
  readStdin?: () => Promise<string>;
  /**
   * A signal aborted on SIGINT/SIGTERM, for commands that run until stopped (`runs tail -f`,
   * `mcp`). Only those ask for it, so Ctrl-C still ends every other command at once.
   */
  interruptSignal?: () => AbortSignal;
  /**
   * The command line's arguments as the system passed them (bytes, one per argument), to refuse
   * one that is not UTF-8; undefined where the platform does not say. @default not checked
   */
  rawArguments?: () => readonly Uint8Array[] | undefined;
}

/** The IO of the running process. */
export function processIo(): CliIo {
  let controller: AbortController | undefined;
  // A reader that went away (`episodic runs list | head`) is not an error worth a stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdoutIsTTY: process.stdout.isTTY === true,
    stdoutColumns: process.stdout.columns,
    stderrIsTTY: process.stderr.isTTY === true,
    env: process.env,
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return decodeUtf8(Buffer.concat(chunks), 'Standard input');
    },
    rawArguments: () =>
      rawProcessArguments(process.argv.length - 2, () => readFileSync('/proc/self/cmdline')),
    interruptSignal: () => {
      if (controller === undefined) {
        const created = new AbortController();
        controller = created;
        const stop = () => created.abort();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      }
      return controller.signal;
    },
  };
}
