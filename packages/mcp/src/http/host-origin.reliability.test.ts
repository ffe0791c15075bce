// Pins "MCP over HTTP: bad Host/Origin → 403, 0 tool executions; default bind 127.0.0.1"
// (QUALITY.md reliability table; research/reliability.md finding 8 and test plan T35; MCP
// transports spec: "Servers MUST validate the Origin header … respond with HTTP 403";
// GHSA-w48q-cv73-mx4w, CVE-2025-66416: DNS rebinding). `episodic-http-server.test.ts` checks fixed
// examples; this fuzzes them against a real server on 127.0.0.1: Host and Origin values built from
// random domains and from near misses of the allowed names (`localhost.evil.example`,
// `127.0.0.1.nip.io`, `127.0.0.2`, `evil-localhost`, `[::2]`, other schemes and ports), each sent
// with a valid token and a tool call. Every one must get 403 and no store may see a call; the
// allowed names (with or without a port, with no Origin) are served. 150 requests per `pnpm test`;
// RELIABILITY_FULL=1 sends 2,000. The seed is printed and replayable (FC_SEED / FC_PATH).
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, fuzzParameters } from '../__fixtures__/fuzz.js';
import {
  type CountingStores,
  CREATE_ARGUMENTS,
  countingStores,
} from '../__fixtures__/mcp-harness.js';
import { type EpisodicHttpServer, startEpisodicHttpServer } from './episodic-http-server.js';

const TOKEN = 'token-fuzz-0123456789abcdef';
const ALLOWED = ['localhost', '127.0.0.1', '[::1]'] as const;

let server: EpisodicHttpServer;
let counting: CountingStores;
let port: string;
beforeAll(async () => {
  counting = countingStores();
  server = await startEpisodicHttpServer({
    stores: counting.stores,
    tokens: [{ name: 'fuzz', token: TOKEN, scope: 'fuzz' }],
    logger: () => {},
  });
  port = new URL(server.url).port;
});
afterAll(async () => {
  await server.close();
});

const call = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'create_episode', arguments: CREATE_ARGUMENTS },
});

/** A POST with exactly these headers (Host included), through node:http. */
function post(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: new URL(server.url).pathname,
        method: 'POST',
        setHost: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${TOKEN}`,
          ...headers,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(call);
  });
}

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
const domain = fc
  .array(label, { minLength: 1, maxLength: 4 })
  .map((labels) => [...labels, 'example'].join('.'));
const allowedName = fc.constantFrom(...ALLOWED);
/** Names that are not one of the allowed ones, many of them close to one. */
const badName = fc.oneof(
  domain,
  fc.tuple(allowedName, domain).map(([name, suffix]) => `${name}.${suffix}`),
  fc.tuple(label, allowedName).map(([prefix, name]) => `${prefix}-${name.replace(/[[\]]/g, '')}`),
  allowedName.map((name) => `${name.replace(/[[\]]/g, '')}.nip.io`),
  fc.constantFrom(
    '127.0.0.2',
    '127.1.0.1',
    '0.0.0.0',
    '10.0.0.1',
    '192.168.1.10',
    '[::2]',
    '[::ffff:7f00:2]',
    'localhast',
    'locaIhost',
    'evil.example',
    'localhost.evil.example',
  ),
);
const maybePort = fc.oneof(
  fc.constant(''),
  fc.integer({ min: 1, max: 65_535 }).map((value) => `:${value}`),
);
const scheme = fc.constantFrom('http', 'https', 'file', 'chrome-extension');

/** A request that must be refused: a bad Host, or a good Host with a bad Origin. */
const refused: fc.Arbitrary<Record<string, string>> = fc.oneof(
  fc.tuple(badName, maybePort).map(([name, portPart]) => ({ host: `${name}${portPart}` })),
  fc.tuple(scheme, badName, maybePort).map(([protocol, name, portPart]) => ({
    origin: `${protocol}://${name}${portPart}`,
  })),
  fc.tuple(badName, maybePort, allowedName).map(([name, portPart, good]) => ({
    host: `${good}:${port}`,
    origin: `http://${name}${portPart}`,
  })),
  fc.constantFrom<Record<string, string>>({ origin: 'null' }, { host: '' }),
);

describe('MCP over HTTP under fuzzed Host and Origin headers', () => {
  it('listens on 127.0.0.1 by default', () => {
    expect(server.host).toBe('127.0.0.1');
  });

  it('refuses every bad Host or Origin with 403 and executes no tool', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(refused, async (headers) => {
        const status = await post({ host: `127.0.0.1:${port}`, ...headers });
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        expect(status, JSON.stringify(headers)).toBe(403);
      }),
      fuzzParameters('http host/origin', count(150, 2_000), count(150, 2_000)),
    );
    expect(counting.total()).toBe(0);
    expect([...statuses.keys()]).toEqual([403]);
  }, 300_000);

  it('serves the allowed names, with or without a port or a local Origin', async () => {
    const before = counting.calls.get('runs.appendAt') ?? 0;
    let served = 0;
    for (const name of ALLOWED) {
      expect(await post({ host: `${name}:${port}` })).toBe(200);
      expect(await post({ host: `${name}:${port}`, origin: `http://${name}:${port}` })).toBe(200);
      served += 2;
    }
    expect(counting.calls.get('runs.appendAt')).toBe(before + served);
  });
});
