// Pins "secret detectors: true positives and near-miss false positives per rule → 100 % redacted,
// 0 false positives on fixtures" (QUALITY.md reliability table; research/reliability.md finding 9
// and test plan T24, after gitleaks' per-rule `tps`/`fps` + `utils.Validate`). Every default rule's
// fixtures (`__fixtures__/content-samples.ts`) go through every place the detectors redact: the
// ledger guard (`redactText`, `guardJsonValue`) and the scrubber of stored runs and snapshots
// (`createStoredRedactor`). A generated corpus of ordinary agent logs (1 MiB per `pnpm test`, 8 MiB
// with RELIABILITY_FULL=1) must raise 0 secret findings, and secrets planted anywhere in it must all
// be found. The corpus seed is printed and replayable (FC_SEED).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createStoredRedactor } from '../store/stored-redaction.js';
import { CONTENT_SAMPLES, ORDINARY_TEXT } from './__fixtures__/content-samples.js';
import { guardJsonValue, placeholderFor, redactText, scanText } from './content-guard.js';
import { DEFAULT_CONTENT_RULES } from './content-rules.js';

const FULL = process.env.RELIABILITY_FULL === '1';
const CORPUS_BYTES = (FULL ? 8 : 1) * 1024 * 1024;
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : (Math.random() * 0x7fffffff) | 0;

const ALL_KINDS = ['secret', 'pii', 'tool_output'] as const;
const secretRules = new Set(
  DEFAULT_CONTENT_RULES.filter((rule) => rule.kind === 'secret').map((rule) => rule.id),
);

/** Lines an agent's logs are made of: paths, hashes, ids, versions, timings, URLs, JSON. */
const line = fc.oneof(
  fc.constantFrom(...ORDINARY_TEXT),
  fc
    .tuple(fc.stringMatching(/^[0-9a-f]{40}$/), fc.stringMatching(/^[a-z]{3,12}$/))
    .map(([sha, word]) => `commit ${sha} ${word}: fix the ${word} handler`),
  fc.uuid().map((id) => `session ${id} resumed from snapshot revision 3`),
  fc
    .tuple(fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/), fc.nat(99_999))
    .map(([ulid, n]) => `event ${ulid} appended at position ${n}`),
  fc
    .tuple(fc.stringMatching(/^[a-z][a-z0-9-]{2,14}$/), fc.nat(20), fc.nat(30), fc.nat(99))
    .map(([name, major, minor, patch]) => `+ ${name}@${major}.${minor}.${patch} added in 412ms`),
  fc
    .tuple(fc.stringMatching(/^[a-z]{2,10}$/), fc.stringMatching(/^[a-z]{2,10}$/))
    .map(([dir, file]) => `wrote /home/dev/project/src/${dir}/${file}.ts (1.2 KiB)`),
  fc
    .tuple(fc.nat(200_000), fc.nat(200_000))
    .map(
      ([input, output]) =>
        `{"input_tokens":${input},"output_tokens":${output},"total_tokens":${input + output}}`,
    ),
  fc
    .tuple(fc.stringMatching(/^[a-z]{3,10}$/), fc.nat(65_535))
    .map(([host, port]) => `GET https://${host}.example.com:${port}/api/v1/items?page=2 → 200`),
  fc
    .stringMatching(/^[A-Za-z0-9+/]{40,120}$/)
    .map((blob) => `attachment sha256-${blob}= (integrity)`),
  fc.constantFrom(
    'Set the password reset link expiry to 30 minutes',
    'The token budget is 8192; the key is the session id',
    'api_key: process.env.API_KEY (read from the environment)',
    `Use ${'$'}{OPENAI_API_KEY} from the secret store, never inline`,
    'secret: <redacted by the user>',
    'Authorization header is added by the proxy',
    'ssh-keygen -t ed25519 -C "ci" wrote id_ed25519.pub',
  ),
);

describe('content detectors', () => {
  for (const rule of DEFAULT_CONTENT_RULES) {
    const samples = CONTENT_SAMPLES[rule.id];
    it(`${rule.id}: 100 % of its true positives redacted everywhere, 0 false positives`, () => {
      expect(samples, `fixtures for ${rule.id}`).toBeDefined();
      if (samples === undefined) return;
      expect(samples.truePositives.length).toBeGreaterThanOrEqual(1);
      expect(samples.falsePositives.length).toBeGreaterThanOrEqual(2);
      const stored = createStoredRedactor({ kinds: [...ALL_KINDS] });
      for (const { text, secret } of samples.truePositives) {
        expect(scanText(text)).toContain(rule.id);
        expect(redactText(text).text).not.toContain(secret);
        const guarded = guardJsonValue({ note: text }, 'payload', { redact: true });
        expect(JSON.stringify(guarded.value)).not.toContain(secret);
        expect(stored.text(text)).not.toContain(secret);
        expect(stored.text(text)).toContain(placeholderFor(rule.id));
        expect(JSON.stringify(stored.json({ note: text }))).not.toContain(secret);
        const line = stored.line(JSON.stringify({ type: 'x.t.n', note: text }));
        expect(line).not.toContain(secret);
      }
      for (const text of samples.falsePositives) {
        expect(scanText(text), JSON.stringify(text)).toEqual([]);
        expect(stored.text(text)).toBe(text);
      }
    });
  }

  it(`raises 0 secret findings on ${CORPUS_BYTES / 1024 / 1024} MiB of ordinary agent logs, and finds every planted secret`, () => {
    console.log(`[fast-check] detector corpus: seed ${SEED} (replay: FC_SEED=${SEED})`);
    const [lines] = fc.sample(fc.array(line, { minLength: 20_000, maxLength: 20_000 }), {
      seed: SEED,
      numRuns: 1,
    });
    const block = (lines as string[]).join('\n');
    const corpus = block.repeat(Math.ceil(CORPUS_BYTES / block.length));
    expect(corpus.length).toBeGreaterThanOrEqual(CORPUS_BYTES);
    const falsePositives = new Map<string, string[]>();
    for (const text of corpus.split('\n')) {
      for (const rule of scanText(text)) {
        if (!secretRules.has(rule)) continue;
        falsePositives.set(rule, [...(falsePositives.get(rule) ?? []), text].slice(0, 3));
      }
    }
    expect(Object.fromEntries(falsePositives)).toEqual({});

    const secrets = Object.values(CONTENT_SAMPLES)
      .flatMap((samples) => samples.truePositives)
      .filter((sample) => sample.text === `value: ${sample.secret} (end)`)
      .map((sample) => sample.secret);
    const planted = (lines as string[]).slice(0, 2_000).map((text, index) => {
      const secret = secrets[index % secrets.length] as string;
      const cut = (index * 7919) % (text.length + 1);
      return { text: `${text.slice(0, cut)} ${secret} ${text.slice(cut)}`, secret };
    });
    let missed = 0;
    for (const { text, secret } of planted) if (redactText(text).text.includes(secret)) missed++;
    expect(missed).toBe(0);
  }, 300_000);
});
