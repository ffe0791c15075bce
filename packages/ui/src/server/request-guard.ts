import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * The cookie that carries the token after the first visit of the printed URL. Cookies are shared
 * by every port of a host, so the name carries the port: two UIs on one machine keep their own.
 */
export function tokenCookieName(port: number): string {
  return `episodic_ui_token_${port}`;
}

/** The loopback host names a browser on this machine uses. */
export const LOOPBACK_HOSTNAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]', '::1'];

/** What a request may carry to reach the UI. */
export interface RequestGuardOptions {
  /** The secret printed in the URL. */
  token: string;
  /** The cookie that carries it (`tokenCookieName`). */
  cookie: string;
  /** Host names (no port) the `Host` and `Origin` headers may name. */
  allowedHostnames: readonly string[];
  /** Also accept any IP address (bound to a non-loopback address: DNS rebinding needs a name). */
  allowIpAddresses: boolean;
}

/** The verdict on one request. */
export type GuardVerdict =
  | { ok: true }
  | { ok: false; status: 401 | 403 | 405; message: string; headers?: Record<string, string> };

/** The host name of a `Host` header value (`127.0.0.1:8080` → `127.0.0.1`, `[::1]:80` → `[::1]`). */
export function hostnameOf(host: string): string {
  const trimmed = host.trim().toLowerCase();
  if (trimmed.startsWith('[')) {
    const end = trimmed.indexOf(']');
    return end === -1 ? trimmed : trimmed.slice(0, end + 1);
  }
  const colon = trimmed.indexOf(':');
  return colon === -1 ? trimmed : trimmed.slice(0, colon);
}

function sameSecret(given: string, token: string): boolean {
  const left = Buffer.from(given, 'utf8');
  const right = Buffer.from(token, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The token a request carries: `Authorization: Bearer`, `?token=`, or the cookie (in that order). */
function tokenOf(headers: Headers, url: URL, cookieName: string): string | undefined {
  const authorization = headers.get('authorization');
  if (authorization !== null && /^bearer\s+/i.test(authorization)) {
    return authorization.replace(/^bearer\s+/i, '').trim();
  }
  const query = url.searchParams.get('token');
  if (query !== null) return query;
  const cookie = headers.get('cookie');
  if (cookie !== null) {
    for (const part of cookie.split(';')) {
      const [name, ...value] = part.trim().split('=');
      if (name === cookieName) return decodeURIComponent(value.join('='));
    }
  }
  return undefined;
}

/**
 * Checks one request, in this order, before anything is read or served:
 * 1. the `Host` header names this machine (or an address the server was bound to): a web page
 *    whose DNS name was rebound to 127.0.0.1 sends its own name and gets 403;
 * 2. an `Origin` header, when a browser sends one, is this UI's origin; a cross-site request
 *    (`Sec-Fetch-Site: cross-site`) is refused too (403);
 * 3. the method reads (GET or HEAD): the UI has no write action at all (405);
 * 4. the token: missing 401, wrong 403.
 */
export function checkRequest(request: Request, options: RequestGuardOptions): GuardVerdict {
  const url = new URL(request.url);
  const allowed = (hostname: string) =>
    options.allowedHostnames.includes(hostname) ||
    (options.allowIpAddresses && isIP(hostname.replace(/^\[|\]$/g, '')) !== 0);
  const host = request.headers.get('host');
  if (host === null || !allowed(hostnameOf(host))) {
    return {
      ok: false,
      status: 403,
      message: `Forbidden: the Host header ${JSON.stringify(host)} does not name this Episodic UI.`,
    };
  }
  const origin = request.headers.get('origin');
  if (origin !== null) {
    let originHost: string | null = null;
    try {
      const parsed = new URL(origin);
      originHost =
        parsed.protocol === 'http:' || parsed.protocol === 'https:'
          ? hostnameOf(parsed.host)
          : null;
    } catch {
      originHost = null;
    }
    if (originHost === null || !allowed(originHost)) {
      return {
        ok: false,
        status: 403,
        message: `Forbidden: requests from ${JSON.stringify(origin)} are not accepted (only the UI's own pages).`,
      };
    }
  }
  if (request.headers.get('sec-fetch-site') === 'cross-site') {
    return { ok: false, status: 403, message: 'Forbidden: cross-site requests are not accepted.' };
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return {
      ok: false,
      status: 405,
      message: `The Episodic UI is read-only: ${request.method} is not allowed.`,
      headers: { allow: 'GET, HEAD' },
    };
  }
  const given = tokenOf(request.headers, url, options.cookie);
  if (given === undefined || given === '') {
    return {
      ok: false,
      status: 401,
      message: 'Unauthorized: open the URL that "episodic ui" printed (it carries the token).',
    };
  }
  if (!sameSecret(given, options.token)) {
    return {
      ok: false,
      status: 403,
      message: 'Forbidden: the token is wrong. Open the URL that "episodic ui" printed.',
    };
  }
  return { ok: true };
}
