import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHome, type UiHome } from '../__fixtures__/ui-home.js';
import { startUiServer, type UiServer } from './start-ui-server.js';

let home: UiHome;
let ui: UiServer;

/** A raw HTTP request, so Host and Origin are exactly what a test says (fetch would set them). */
function raw(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: ui.port,
        path,
        method: options.method ?? 'GET',
        // One connection per request: a refused request's unread body never reaches the next one.
        agent: false,
        headers: {
          host: `127.0.0.1:${ui.port}`,
          ...(options.body === undefined
            ? {}
            : { 'content-length': String(Buffer.byteLength(options.body)) }),
          ...options.headers,
        },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const bearer = () => ({ authorization: `Bearer ${ui.token}` });

beforeAll(async () => {
  home = await createUiHome();
  ui = await startUiServer({ stores: home.stores, port: 0 });
});
afterAll(async () => {
  await ui.close();
  await home.close();
});

describe('startUiServer', () => {
  it('binds 127.0.0.1 by default and prints a URL with a random token', () => {
    expect(ui.host).toBe('127.0.0.1');
    expect(ui.url).toBe(`http://127.0.0.1:${ui.port}/?token=${ui.token}`);
    expect(ui.token.length).toBeGreaterThanOrEqual(24);
  });

  it('serves the API with the token, with security headers and no caching', async () => {
    const response = await raw('/api/runs', { headers: bearer() });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body).runs).toHaveLength(6);
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('refuses a bad Host or Origin with 403 and serves nothing', async () => {
    for (const headers of [
      { ...bearer(), host: 'evil.example' },
      { ...bearer(), host: `attacker.example:${ui.port}` },
      { ...bearer(), origin: 'https://evil.example' },
    ]) {
      const response = await raw('/api/runs', { headers });
      expect(response.status).toBe(403);
      expect(response.body).not.toContain(home.ids.toolRunId);
      const page = await raw(`/?token=${ui.token}`, { headers });
      expect(page.status).toBe(403);
      expect(page.headers['set-cookie']).toBeUndefined();
    }
  });

  it('answers 401 without the token and 403 with a wrong one', async () => {
    expect((await raw('/api/runs')).status).toBe(401);
    expect((await raw('/runs')).status).toBe(401);
    expect(
      (await raw('/api/runs', { headers: { authorization: 'Bearer wrong-token-wrong-token' } }))
        .status,
    ).toBe(403);
    expect((await raw('/?token=wrong')).status).toBe(403);
  });

  it('has no write action: POST, PUT, PATCH and DELETE are refused and change nothing', async () => {
    const before = (await raw('/api/runs', { headers: bearer() })).body;
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const path of [
        '/api/runs',
        `/api/runs/${home.ids.toolRunId}`,
        '/api/ledger',
        '/api/sessions',
        '/',
      ]) {
        const response = await raw(path, {
          method,
          headers: { ...bearer(), 'content-type': 'application/json' },
          body: '{}',
        });
        expect(response.status, `${method} ${path}: ${response.body}`).toBe(405);
        expect(response.headers.allow).toBe('GET, HEAD');
      }
    }
    expect((await raw('/api/runs', { headers: bearer() })).body).toBe(before);
    expect(await home.stores.runs.read(home.ids.toolRunId)).toMatchObject({ ended: true });
  });

  it('trades the URL token for an HttpOnly cookie and drops it from the address', async () => {
    const first = await raw(`/sessions/${home.ids.sessionId}?token=${ui.token}`);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe(`/sessions/${home.ids.sessionId}`);
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toMatch(new RegExp(`^episodic_ui_token_${ui.port}=`));
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const page = await raw(`/sessions/${home.ids.sessionId}`, {
      headers: { cookie: cookie.split(';')[0] as string },
    });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
  });

  it('answers bad input and unknown ids as JSON errors with the fix, never a stack', async () => {
    const bad = await raw('/api/runs?status=done', { headers: bearer() });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.code).toBe('VALIDATION_ERROR');
    const missing = await raw('/api/runs/00000000-0000-4000-8000-999999999999', {
      headers: bearer(),
    });
    expect(missing.status).toBe(404);
    expect(missing.body).not.toMatch(/\n\s+at /);
    expect((await raw('/api/nothing', { headers: bearer() })).status).toBe(404);
  });

  it('streams a running run live over server-sent events', async () => {
    const runId = home.ids.runningRunId;
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: ui.port,
          path: `/api/runs/${runId}/live?position=2`,
          headers: { host: `127.0.0.1:${ui.port}`, ...bearer() },
        },
        (response) => {
          expect(response.headers['content-type']).toContain('text/event-stream');
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
          });
          response.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end();
      setTimeout(() => {
        const ts = new Date().toISOString();
        void home.stores.runs.append(runId, [
          {
            type: 'agent.event',
            run_id: runId,
            ts,
            seq: 0,
            event: { type: 'text', content: 'streamed' },
          },
          { type: 'run.end', run_id: runId, ts, outcome: 'completed' },
        ] as never);
      }, 300);
    });
    expect(body).toContain('event: records');
    expect(body).toContain('streamed');
    expect(body).toContain('event: end');
  });

  it('says which port is taken, and starts nothing', async () => {
    await expect(startUiServer({ stores: home.stores, port: ui.port })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining(`port ${ui.port} on 127.0.0.1 is already in use`),
    });
  });

  it('validates its options', async () => {
    await expect(startUiServer({ stores: home.stores, port: 70_000 })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(startUiServer({ stores: home.stores, token: 'short' })).rejects.toThrow(/token/);
    await expect(startUiServer({ stores: {} as never })).rejects.toThrow(/stores/);
  });
});
