import { spawn } from 'node:child_process';
import type { CommandHandler } from '../command-spec.js';
import { flag, optionalInteger, optionalString } from '../option-values.js';
import { createStyles } from '../output.js';
import { receiptEnvelope } from '../receipt-envelope.js';
import { locate, withStores } from '../stores.js';
import { UsageError } from '../usage-error.js';

/** Opens `url` in the desktop's browser; a machine without one simply keeps the printed URL. */
function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener: the URL is printed anyway.
  }
}

/**
 * `ui`: serves the local, read-only web app of `@episodic/ui` over this command line's stores and
 * runs until interrupted. `@episodic/ui` (and its server and browser app) is loaded here only, so
 * no other command pays for it at start-up.
 */
export const ui: CommandHandler = async (context) => {
  const { options, globals, io, env } = context;
  const port = optionalInteger(options, 'port', { min: 0, max: 65_535 }) ?? 0;
  const host = optionalString(options, 'host');
  const token = env.EPISODIC_UI_TOKEN === '' ? undefined : env.EPISODIC_UI_TOKEN;
  if (token !== undefined && token.length < 16) {
    throw new UsageError(
      'EPISODIC_UI_TOKEN must be at least 16 characters (or unset it for a random token).',
      'VALIDATION_ERROR',
    );
  }
  const location = locate(context);
  const { startUiServer } = await import('@episodic/ui');
  await withStores(context, async (stores) => {
    const server = await startUiServer({
      stores,
      port,
      ...(host === undefined ? {} : { host }),
      ...(token === undefined ? {} : { token }),
    });
    const signal = io.interruptSignal?.();
    signal?.addEventListener('abort', () => void server.close(), { once: true });
    if (globals.json) {
      io.stdout(
        `${JSON.stringify({
          ...receiptEnvelope(context.kind, true),
          url: server.url,
          origin: server.origin,
          host: server.host,
          port: server.port,
          store: location.store,
          home: location.home,
          database: location.database,
        })}\n`,
      );
    } else {
      const styles = createStyles(globals.color);
      io.stdout(
        `Episodic UI (read-only) for ${location.home} (${location.store} store):\n\n  ${styles.bold(server.url)}\n\n`,
      );
      if (!globals.quiet) {
        io.stderr(
          styles.dim(
            'The URL carries a secret token: share it only with yourself. Press Ctrl-C to stop.\n',
          ),
        );
      }
    }
    if (!flag(options, 'no-open') && io.stdoutIsTTY === true) openBrowser(server.url);
    await server.closed;
  });
  return {};
};
