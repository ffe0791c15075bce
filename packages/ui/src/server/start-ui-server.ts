import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import { EpisodicError } from '@episodic/core';
import { parseInput } from '@episodic/core/adapter';
import { serve } from '@hono/node-server';
import * as z from 'zod';
import { createStoreAccess, type UiStores } from '../stores/ui-stores.js';
import { createUiApp } from './create-ui-app.js';
import { LOOPBACK_HOSTNAMES, tokenCookieName } from './request-guard.js';
import { defaultClientDirectory, loadStaticAssets } from './static-assets.js';

/** Options of `startUiServer`. */
export interface UiServerOptions {
  /** The stores to show (what `openEpisodicStores` returns); the caller closes them. */
  stores: UiStores;
  /**
   * The address to listen on. Anything but a loopback address makes the UI reachable from other
   * machines (the token still guards it).
   * @default '127.0.0.1'
   */
  host?: string | undefined;
  /** The port; 0 picks a free one. @default 0 */
  port?: number | undefined;
  /** The secret the URL carries (at least 16 characters). @default 24 random bytes, base64url */
  token?: string | undefined;
  /** How often a live run is polled, in milliseconds. @default 500 */
  livePollMs?: number | undefined;
  /** Where the built browser app is. @default the package's `dist/client` */
  clientDirectory?: string | undefined;
}

/** A listening UI server. */
export interface UiServer {
  /** The URL to open: the origin, with the token (`http://127.0.0.1:PORT/?token=…`). */
  readonly url: string;
  /** The origin without the token, e.g. `http://127.0.0.1:8765`. */
  readonly origin: string;
  readonly host: string;
  readonly port: number;
  readonly token: string;
  /** Resolves once the server has stopped (after `close()`). */
  readonly closed: Promise<void>;
  /** Stops the server and its live streams (the stores are the caller's to close). */
  close(): Promise<void>;
}

const optionsSchema = z.looseObject({
  stores: z.custom<UiStores>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      ['runs', 'sessions', 'ledger', 'artifacts', 'location'].every(
        (key) => key in (value as object),
      ),
    'must hold runs, sessions, ledger, artifacts and location (what openEpisodicStores returns)',
  ),
  host: z.string().min(1).max(255).optional(),
  port: z.number().int().min(0).max(65_535).optional(),
  token: z
    .string()
    .min(16, 'must be at least 16 characters')
    .max(512)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .optional(),
  livePollMs: z.number().int().min(10).max(60_000).optional(),
  clientDirectory: z.string().min(1).optional(),
});

/** Why the server could not listen, said so the user can pick another port or address. */
function listenError(error: NodeJS.ErrnoException, host: string, port: number): EpisodicError {
  const where = `${host}:${port}`;
  const reason =
    error.code === 'EADDRINUSE'
      ? `port ${port} on ${host} is already in use: choose another with --port, or 0 for any free port`
      : error.code === 'EACCES'
        ? `listening on ${where} is not permitted: use a port above 1023, or 0 for any free port`
        : error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND'
          ? `${host} is not an address of this machine: use 127.0.0.1 (the default) or one of its addresses`
          : `listening on ${where} failed (${error.code ?? error.message})`;
  return new EpisodicError({
    code: 'VALIDATION_ERROR',
    message: `The UI could not start: ${reason}.`,
    details: { host, port, backendCode: error.code },
    cause: error,
  });
}

function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/**
 * Starts the UI: a local, read-only web app over `stores`. It listens on 127.0.0.1 by default and
 * answers only requests that name this machine (Host and Origin checked) and carry the token; it
 * has no route that writes.
 *
 * ```ts
 * const stores = await openEpisodicStores({ home: './.episodic' });
 * const ui = await startUiServer({ stores });
 * console.log(`open ${ui.url}`);
 * ```
 */
export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const checked = parseInput(optionsSchema, options, 'UI server options');
  const host = checked.host ?? '127.0.0.1';
  const token = checked.token ?? randomBytes(24).toString('base64url');
  const loopback = LOOPBACK_HOSTNAMES.includes(host.toLowerCase());
  const bindsAll = host === '0.0.0.0' || host === '::';
  const access = createStoreAccess(options.stores);
  const assets = loadStaticAssets(checked.clientDirectory ?? defaultClientDirectory());
  const closing = new AbortController();
  // The port is known only once listening; the guard reads it then.
  const guard = {
    token,
    cookie: '',
    allowedHostnames: [
      ...LOOPBACK_HOSTNAMES,
      ...(loopback || bindsAll ? [] : [urlHost(host).toLowerCase()]),
    ],
    allowIpAddresses: !loopback,
  };
  const app = createUiApp({
    stores: options.stores,
    access,
    guard,
    assets,
    ...(checked.livePollMs === undefined ? {} : { livePollMs: checked.livePollMs }),
    signal: closing.signal,
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: host, port: checked.port ?? 0 }, () =>
      resolve(started as Server),
    ) as Server;
    started.once('error', (error: NodeJS.ErrnoException) => {
      void access.close();
      reject(listenError(error, host, checked.port ?? 0));
    });
  });
  const port = (server.address() as AddressInfo).port;
  guard.cookie = tokenCookieName(port);
  const origin = `http://${bindsAll ? '127.0.0.1' : urlHost(host)}:${port}`;
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let stopping: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${encodeURIComponent(token)}`,
    origin,
    host,
    port,
    token,
    closed,
    close() {
      stopping ??= (async () => {
        closing.abort();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections?.();
        });
        await access.close();
        resolveClosed();
      })();
      return stopping;
    },
  };
}
