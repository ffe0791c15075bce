import type { CommandContext } from './command-spec.js';

/** A progress line for long work. */
export interface Progress {
  /** Reports `done` of `total` (total unknown: omit it). */
  update(done: number, total?: number, detail?: string): void;
  /** Clears the line. */
  finish(): void;
}

const INTERVAL_MS = 80;
const inactive: Progress = { update() {}, finish() {} };

/**
 * A progress line on stderr, redrawn in place. It shows only when stderr is a terminal and
 * `--quiet` is not given, and never touches stdout, so `--json` output stays one clean receipt.
 */
export function createProgress(context: CommandContext, label: string): Progress {
  if (context.io.stderrIsTTY !== true || context.globals.quiet) return inactive;
  const write = context.io.stderr;
  let last = 0;
  let shown = false;
  return {
    update(done, total, detail) {
      const now = Date.now();
      if (now - last < INTERVAL_MS && done !== total) return;
      last = now;
      shown = true;
      const count = total === undefined ? `${done}` : `${done}/${total}`;
      write(`\r\u001b[K${label} ${count}${detail === undefined ? '' : ` ${detail}`}`);
    },
    finish() {
      if (shown) write('\r\u001b[K');
      shown = false;
    },
  };
}
