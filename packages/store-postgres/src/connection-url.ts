import { EpisodicError } from '@episodic/core';

const SCHEMES = ['postgres:', 'postgresql:'];

/** True when `value` is a `postgres://` or `postgresql://` URL (what selects this store). */
export function isPostgresUrl(value: string): boolean {
  const lower = value.trimStart().slice(0, 13).toLowerCase();
  return lower.startsWith('postgres://') || lower.startsWith('postgresql://');
}

/**
 * The `schema` query parameter of a URL (`postgres://…/db?schema=team_a`), which Episodic reads
 * and removes before the URL reaches the driver; undefined when there is none.
 */
export function schemaOfUrl(url: string): { url: string; schema?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return { url };
  }
  const schema = parsed.searchParams.get('schema');
  if (schema === null) return { url };
  parsed.searchParams.delete('schema');
  return { url: parsed.toString(), schema };
}

/** Query parameters that carry a secret and never leave `describeConnection`. */
const SECRET_PARAMETERS = new Set(['password', 'sslpassword', 'sslkey', 'passfile']);

/**
 * A connection URL with its credentials removed, safe for messages, logs and receipts:
 * `postgres://alice@db.internal:5432/episodic` (the password, and any `password` or `sslpassword`
 * query parameter, are dropped; other parameters are kept). Never throws: a value that does not
 * parse is described as `a PostgreSQL URL that does not parse`.
 */
export function describeConnection(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return 'a PostgreSQL URL that does not parse';
  }
  if (!SCHEMES.includes(parsed.protocol)) return 'a URL that is not postgres://';
  parsed.password = '';
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAMETERS.has(name.toLowerCase())) parsed.searchParams.delete(name);
  }
  return parsed.toString();
}

/**
 * Checks a connection URL before anything connects: the scheme, a host or socket, a database
 * name. The error never repeats the URL (it may hold a password); it names what is wrong and shows
 * the credential-free form.
 */
export function checkConnectionUrl(url: unknown, field = 'connectionString'): string {
  const invalid = (problem: string) =>
    new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Invalid ${field}: ${problem}. Give a URL like postgres://user:password@host:5432/database. Nothing was opened.`,
      details: { field },
    });
  if (typeof url !== 'string' || url.trim() === '') throw invalid('it is empty');
  if (!isPostgresUrl(url)) throw invalid('it must start with postgres:// or postgresql://');
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw invalid('it does not parse as a URL (percent-encode special characters in the password)');
  }
  const socket = parsed.searchParams.get('host');
  if (parsed.hostname === '' && (socket === null || socket === '')) {
    throw invalid(`${describeConnection(url)} names no host`);
  }
  return url.trim();
}
