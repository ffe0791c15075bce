import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkRequest,
  hostnameOf,
  LOOPBACK_HOSTNAMES,
  type RequestGuardOptions,
} from './request-guard.js';

const TOKEN = 'a-secret-token-of-24-chars';
const options: RequestGuardOptions = {
  token: TOKEN,
  cookie: 'episodic_ui_token_8765',
  allowedHostnames: LOOPBACK_HOSTNAMES,
  allowIpAddresses: false,
};

function request(
  headers: Record<string, string>,
  init: { method?: string; path?: string } = {},
): Request {
  return new Request(`http://127.0.0.1:8765${init.path ?? '/api/runs'}`, {
    method: init.method ?? 'GET',
    headers,
  });
}

const withToken = { host: '127.0.0.1:8765', authorization: `Bearer ${TOKEN}` };

describe('checkRequest', () => {
  it('lets a request from this machine with the token through', () => {
    expect(checkRequest(request(withToken), options)).toEqual({ ok: true });
    expect(
      checkRequest(
        request({ host: 'localhost:8765', cookie: `other=1; episodic_ui_token_8765=${TOKEN}` }),
        options,
      ),
    ).toEqual({ ok: true });
    expect(
      checkRequest(request({ host: '[::1]:8765' }, { path: `/?token=${TOKEN}` }), options),
    ).toEqual({ ok: true });
  });

  it('refuses a Host that does not name this machine (DNS rebinding) before looking at the token', () => {
    for (const host of [
      'evil.example:8765',
      'localhost.evil.example',
      '127.0.0.1.nip.io:8765',
      '',
    ]) {
      expect(checkRequest(request({ ...withToken, host }), options)).toMatchObject({
        ok: false,
        status: 403,
      });
    }
  });

  it('refuses a foreign Origin and cross-site requests', () => {
    for (const origin of [
      'https://evil.example',
      'null',
      'http://127.0.0.1.evil.example',
      'file://',
    ]) {
      expect(checkRequest(request({ ...withToken, origin }), options)).toMatchObject({
        ok: false,
        status: 403,
      });
    }
    expect(
      checkRequest(request({ ...withToken, origin: 'http://localhost:8765' }), options),
    ).toEqual({ ok: true });
    expect(
      checkRequest(request({ ...withToken, 'sec-fetch-site': 'cross-site' }), options),
    ).toMatchObject({ ok: false, status: 403 });
  });

  it('refuses every method that could write (405), even with the token', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      expect(checkRequest(request(withToken, { method }), options)).toMatchObject({
        ok: false,
        status: 405,
        headers: { allow: 'GET, HEAD' },
      });
    }
  });

  it('answers 401 without a token and 403 with a wrong one', () => {
    expect(checkRequest(request({ host: '127.0.0.1:8765' }), options)).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(
      checkRequest(request({ host: '127.0.0.1:8765', authorization: 'Bearer nope' }), options),
    ).toMatchObject({ ok: false, status: 403 });
    expect(
      checkRequest(
        request({ host: '127.0.0.1:8765', cookie: `episodic_ui_token_9999=${TOKEN}` }),
        options,
      ),
    ).toMatchObject({ ok: false, status: 401 });
    expect(
      checkRequest(request({ host: '127.0.0.1:8765' }, { path: `/?token=${TOKEN}x` }), options),
    ).toMatchObject({ ok: false, status: 403 });
  });

  it('accepts IP addresses as hosts only when bound to a non-loopback address', () => {
    const lan = { ...options, allowIpAddresses: true };
    expect(checkRequest(request({ ...withToken, host: '192.168.1.20:8765' }), lan)).toEqual({
      ok: true,
    });
    expect(
      checkRequest(request({ ...withToken, host: '192.168.1.20:8765' }), options),
    ).toMatchObject({ status: 403 });
    expect(checkRequest(request({ ...withToken, host: 'evil.example' }), lan)).toMatchObject({
      status: 403,
    });
  });
});

describe('hostnameOf', () => {
  it('takes the host name of any host:port, IPv6 in brackets included', () => {
    fc.assert(
      fc.property(fc.domain(), fc.integer({ min: 0, max: 65_535 }), (domain, port) => {
        expect(hostnameOf(`${domain}:${port}`)).toBe(domain.toLowerCase());
        expect(hostnameOf(domain)).toBe(domain.toLowerCase());
      }),
    );
    fc.assert(
      fc.property(fc.ipV6(), fc.integer({ min: 0, max: 65_535 }), (address, port) => {
        expect(hostnameOf(`[${address}]:${port}`)).toBe(`[${address.toLowerCase()}]`);
      }),
    );
  });
});
