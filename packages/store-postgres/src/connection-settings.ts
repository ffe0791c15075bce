import { EpisodicError } from '@episodic/core';
import { describeConnection } from './connection-url.js';

/**
 * How long a call may wait on the server, and TCP keepalive: what turns a frozen, overloaded or
 * vanished server into a `STORAGE_ERROR` instead of a call that never returns.
 */
export interface ConnectionSettings {
  /** Server side (`statement_timeout`): the server cancels a statement running longer. 0: off. */
  readonly statementTimeoutMs: number;
  /** Client side (node-postgres `query_timeout`): a reply not complete by then fails. 0: off. */
  readonly queryTimeoutMs: number;
  /** Waiting for a connection (a new one, or a free one of the pool). */
  readonly connectionTimeoutMs: number;
  /** TCP keepalive on the store's connections. */
  readonly keepAlive: boolean;
  /** Idle time before the first keepalive probe. */
  readonly keepAliveInitialDelayMs: number;
  /** Both timeouts for schema migrations and `VACUUM (FULL)` rewrites. 0: no limit. */
  readonly maintenanceTimeoutMs: number;
}

/**
 * The defaults. A call is milliseconds; a frozen server (a stopped process, a stalled disk, a
 * network path that drops packets without a reset) would otherwise hold a call forever, because the
 * kernel keeps the TCP connection open. The server cancels a statement after 10 s (a lock held by
 * a stuck writer, a runaway plan) and the connection stays usable; 5 s later the client gives up on
 * a server that does not answer at all and discards the connection. So any call ends within about
 * 15 s (a new connection within 10 s), long enough for the longest ordinary statement at the
 * documented sizes (a session load or fold of hundreds of MB), short enough for an agent's loop to
 * report and retry.
 */
export const DEFAULT_CONNECTION_SETTINGS: ConnectionSettings = {
  statementTimeoutMs: 10_000,
  queryTimeoutMs: 15_000,
  connectionTimeoutMs: 10_000,
  keepAlive: true,
  keepAliveInitialDelayMs: 10_000,
  maintenanceTimeoutMs: 600_000,
};

/** The URL query parameters the store reads (and removes before the URL reaches the driver). */
const URL_PARAMETERS = {
  /** Milliseconds, like PostgreSQL's `statement_timeout` setting. */
  statement_timeout: { setting: 'statementTimeoutMs', scale: 1 },
  /** Milliseconds, like node-postgres's `query_timeout`. */
  query_timeout: { setting: 'queryTimeoutMs', scale: 1 },
  /** Seconds, as in libpq. */
  connect_timeout: { setting: 'connectionTimeoutMs', scale: 1000 },
  /** 1 or 0, as in libpq. */
  keepalives: { setting: 'keepAlive', scale: 0 },
  /** Seconds, as in libpq. */
  keepalives_idle: { setting: 'keepAliveInitialDelayMs', scale: 1000 },
} as const;

type Settable = Exclude<keyof ConnectionSettings, 'maintenanceTimeoutMs'>;

/**
 * Reads the timeout and keepalive parameters of a connection URL (`?statement_timeout=5000&
 * query_timeout=8000&connect_timeout=5&keepalives=1&keepalives_idle=30`) and returns the URL
 * without them. A bad value is a `VALIDATION_ERROR` naming the parameter (never the password).
 */
export function settingsOfUrl(url: string): {
  url: string;
  settings: Partial<Pick<ConnectionSettings, Settable>>;
} {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, settings: {} };
  }
  const settings: Partial<Record<Settable, number | boolean>> = {};
  let found = false;
  for (const [name, { setting, scale }] of Object.entries(URL_PARAMETERS)) {
    const value = parsed.searchParams.get(name);
    if (value === null) continue;
    found = true;
    parsed.searchParams.delete(name);
    const number = /^\d{1,10}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    const fits = scale === 0 ? number === 0 || number === 1 : Number.isSafeInteger(number * scale);
    if (!fits) {
      const wanted =
        scale === 0
          ? '1 (on) or 0 (off)'
          : `a whole number of ${scale === 1 ? 'milliseconds' : 'seconds'} (0: off)`;
      throw new EpisodicError({
        code: 'VALIDATION_ERROR',
        message: `Invalid connectionString: its parameter ${name}=${JSON.stringify(value)} must be ${wanted}, in ${describeConnection(url)}. Nothing was opened.`,
        details: { field: 'connectionString', parameter: name, value },
      });
    }
    settings[setting] = scale === 0 ? number === 1 : number * scale;
  }
  return {
    url: found ? parsed.toString() : url,
    settings: settings as Partial<Pick<ConnectionSettings, Settable>>,
  };
}
