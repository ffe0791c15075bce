import fc from 'fast-check';
import { bytesToBase64, describeData } from '../binary-data.js';

type Json = unknown;

const key = fc.string({ minLength: 1, maxLength: 6 }).filter((value) => value !== 'episodic');
// JSON values as JSON text holds them: `fc.jsonValue` may give -0, which JSON.stringify writes as 0
// (core's append stores the same normal form), so a -0 would fail "survives JSON" for JSON's reason.
const jsonValue = fc
  .jsonValue({ maxDepth: 2 })
  .map((value) => JSON.parse(JSON.stringify(value)) as Json);

/** Provider options (never the `episodic` history mark, which the conversion drops on purpose). */
const providerOptions = fc.dictionary(key, fc.dictionary(key, jsonValue, { maxKeys: 2 }), {
  minKeys: 1,
  maxKeys: 2,
});

const withOptional = <T extends object>(
  base: fc.Arbitrary<T>,
  extras: Record<string, fc.Arbitrary<unknown>>,
) =>
  fc
    .tuple(base, fc.record(extras, { requiredKeys: [] }))
    .map(([value, extra]) => ({ ...value, ...extra }));

const bytes = fc.uint8Array({ maxLength: 24 });
const base64 = bytes.map(bytesToBase64);
const url = fc
  .tuple(
    fc.constantFrom('https://example.com/', 'http://files.test/a/'),
    fc.stringMatching(/^[a-z0-9]{1,8}$/),
  )
  .map(([prefix, path]) => new URL(`${prefix}${path}`));
const data = fc.oneof(bytes, base64, url);
const mediaType = fc.constantFrom('image/png', 'image/jpeg', 'application/pdf', 'text/plain');
const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,10}$/);

const textPart = withOptional(
  fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 12 }) }),
  {
    providerOptions,
  },
);
const imagePart = withOptional(fc.record({ type: fc.constant('image'), image: data }), {
  mediaType,
  providerOptions,
});
const filePart = withOptional(fc.record({ type: fc.constant('file'), data, mediaType }), {
  filename: fc.string({ maxLength: 8 }),
  providerOptions,
});
const reasoningPart = withOptional(
  fc.record({ type: fc.constant('reasoning'), text: fc.string({ maxLength: 12 }) }),
  { providerOptions },
);
const toolCallPart = withOptional(
  fc.record({ type: fc.constant('tool-call'), toolCallId: id, toolName: id, input: jsonValue }),
  { providerExecuted: fc.boolean(), providerOptions },
);

const outputContentPart = fc.oneof(
  withOptional(fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 8 }) }), {
    providerOptions,
  }),
  withOptional(fc.record({ type: fc.constant('image-data'), data: base64, mediaType }), {
    providerOptions,
  }),
  withOptional(fc.record({ type: fc.constant('image-url'), url: url.map((value) => value.href) }), {
    providerOptions,
  }),
  withOptional(fc.record({ type: fc.constant('file-data'), data: base64, mediaType }), {
    filename: fc.string({ maxLength: 8 }),
    providerOptions,
  }),
  withOptional(fc.record({ type: fc.constant('file-url'), url: url.map((value) => value.href) }), {
    mediaType,
    providerOptions,
  }),
  fc.record({ type: fc.constant('media'), data: base64, mediaType }),
  withOptional(fc.record({ type: fc.constant('file-id'), fileId: id }), { providerOptions }),
);

const toolOutput = fc.oneof(
  withOptional(fc.record({ type: fc.constant('text'), value: fc.string({ maxLength: 12 }) }), {
    providerOptions,
  }),
  withOptional(fc.record({ type: fc.constant('json'), value: jsonValue }), { providerOptions }),
  withOptional(
    fc.record({ type: fc.constant('error-text'), value: fc.string({ maxLength: 12 }) }),
    {
      providerOptions,
    },
  ),
  withOptional(fc.record({ type: fc.constant('error-json'), value: jsonValue }), {
    providerOptions,
  }),
  withOptional(fc.record({ type: fc.constant('execution-denied') }), {
    reason: fc.string({ maxLength: 12 }),
    providerOptions,
  }),
  withOptional(
    fc.record({
      type: fc.constant('content'),
      value: fc.array(outputContentPart, { maxLength: 3 }),
    }),
    { providerOptions },
  ),
);

const toolResultPart = withOptional(
  fc.record({ type: fc.constant('tool-result'), toolCallId: id, toolName: id, output: toolOutput }),
  { providerOptions },
);

const approvalResponse = withOptional(
  fc.record({
    type: fc.constant('tool-approval-response'),
    approvalId: id,
    approved: fc.boolean(),
  }),
  { reason: fc.string({ maxLength: 8 }) },
);

const message = <T extends object>(base: fc.Arbitrary<T>) =>
  withOptional(base, { providerOptions });

/** Any AI SDK 6 `ModelMessage` with the parts the conversion maps (and some it keeps as they are). */
export const modelMessageArbitrary = fc.oneof(
  message(fc.record({ role: fc.constant('system'), content: fc.string({ maxLength: 12 }) })),
  message(
    fc.record({
      role: fc.constant('user'),
      content: fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.array(fc.oneof(textPart, imagePart, filePart), { maxLength: 4 }),
      ),
    }),
  ),
  message(
    fc.record({
      role: fc.constant('assistant'),
      content: fc.oneof(
        fc.string({ maxLength: 12 }),
        fc.array(fc.oneof(textPart, filePart, reasoningPart, toolCallPart, toolResultPart), {
          maxLength: 5,
        }),
      ),
    }),
  ),
  message(
    fc.record({
      role: fc.constant('tool'),
      content: fc.array(fc.oneof(toolResultPart, toolResultPart, approvalResponse), {
        minLength: 1,
        maxLength: 3,
      }),
    }),
  ),
);

/**
 * The meaning of a message list, for comparing: binary data as base64 whatever its form
 * (`Uint8Array`, base64 text, data URL), URLs as their `href`, a part's own media type folded in,
 * and JSON values as JSON reads them back (so `-0` is `0`).
 */
export function canonicalMessages(messages: readonly unknown[]): Json {
  const visit = (value: unknown, parentKey?: string, parent?: Record<string, unknown>): Json => {
    if ((parentKey === 'image' || parentKey === 'data') && parent !== undefined) {
      const described = describeData(value, parent.mediaType as string | undefined);
      if (described.kind === 'bytes') return { bytes: described.base64 };
      if (described.kind === 'url') return { url: described.href };
    }
    if (value instanceof URL) return { url: value.href };
    if (Array.isArray(value)) return value.map((entry) => visit(entry));
    if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      const copy: Record<string, unknown> = {};
      for (const [name, entry] of Object.entries(record)) {
        if (entry === undefined) continue;
        copy[name] = visit(entry, name, record);
      }
      return copy;
    }
    return value;
  };
  return JSON.parse(JSON.stringify(visit(messages)));
}
