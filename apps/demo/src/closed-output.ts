/**
 * Ends the demo quietly when the reader of its output goes away (`pnpm -s demo --json | head`):
 * a closed pipe is the reader's choice, not a failure worth a stack trace.
 */
export function exitWhenOutputCloses(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
