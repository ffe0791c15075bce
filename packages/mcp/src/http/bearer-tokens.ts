import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type AccessPolicy, EpisodicError } from '@episodic/core';
import { parseInput, safeJsonParse } from '@episodic/core/adapter';
import { accessPolicySchema } from '@episodic/core/schemas';
import * as z from 'zod';

/** The shortest bearer token accepted (a token is a password: make it long and random). */
export const MIN_TOKEN_LENGTH = 16;

/** One bearer token of the HTTP server, bound to one scope and an optional access policy. */
export interface EpisodicHttpToken {
  /** A name for logs (never the token itself). */
  name?: string | undefined;
  /** The token as clients send it (`Authorization: Bearer <token>`), at least 16 characters. */
  token?: string | undefined;
  /** Instead of `token`: its SHA-256 as 64 hex digits, so the tokens file holds no secret. */
  token_sha256?: string | undefined;
  /** The scope every call with this token is bound to. */
  scope: string;
  /** Restricts the token to task episodes, events and patterns whose metadata satisfies it. */
  policy?: AccessPolicy | undefined;
}

/** One token entry of a tokens file (or of `startEpisodicHttpServer({ tokens })`). */
export const httpTokenSchema = z
  .strictObject({
    name: z.string().min(1).max(100).optional(),
    token: z
      .string()
      .min(MIN_TOKEN_LENGTH)
      .max(4096)
      .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
      .optional(),
    token_sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be a SHA-256 digest: 64 hexadecimal digits')
      .optional(),
    scope: z.string().min(1).max(1024),
    policy: accessPolicySchema.optional(),
  })
  .superRefine((entry, context) => {
    if ((entry.token === undefined) === (entry.token_sha256 === undefined)) {
      context.addIssue({
        code: 'custom',
        path: ['token'],
        message: 'give exactly one of token and token_sha256',
      });
    }
  });

/** A tokens file: `{ "tokens": [ … ] }` or a bare array of entries. */
export const tokensFileSchema = z.union([
  z.strictObject({ tokens: z.array(httpTokenSchema).min(1).max(1000) }),
  z.array(httpTokenSchema).min(1).max(1000),
]);

/** SHA-256 of a token, as lowercase hex: how tokens are looked up (never compared as text). */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The digest an entry is matched by. */
export function digestOfEntry(entry: EpisodicHttpToken): string {
  return entry.token_sha256 !== undefined
    ? entry.token_sha256.toLowerCase()
    : tokenDigest(entry.token as string);
}

/** Validates token entries; duplicate tokens are refused (one token, one scope). */
export function checkTokens(tokens: unknown): EpisodicHttpToken[] {
  const entries = parseInput(z.array(httpTokenSchema).min(1).max(1000), tokens, 'HTTP tokens');
  const seen = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    const digest = digestOfEntry(entry);
    if (seen.has(digest)) {
      throw new EpisodicError({
        code: 'VALIDATION_ERROR',
        message: `Invalid HTTP tokens: entry ${index}${entry.name === undefined ? '' : ` (${entry.name})`} repeats a token of an earlier entry. Each token must be bound to exactly one scope; give every client its own token.`,
        details: { index },
      });
    }
    seen.add(digest);
  }
  return entries;
}

/**
 * Reads a tokens file:
 *
 * ```json
 * { "tokens": [
 *   { "name": "laptop", "token": "…32 random characters…", "scope": "my-project" },
 *   { "name": "ci", "token_sha256": "…64 hex…", "scope": "acme", "policy": { "required": { "tenant": "acme" } } }
 * ] }
 * ```
 */
export function readTokensFile(path: string): EpisodicHttpToken[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `Could not read the tokens file ${path}: ${(error as Error).message}. Check the path (--tokens / EPISODIC_MCP_TOKENS_FILE).`,
      details: { path },
      cause: error,
    });
  }
  const parsed = safeJsonParse(text);
  if (!parsed.success) {
    throw new EpisodicError({
      code: 'VALIDATION_ERROR',
      message: `The tokens file ${path} is not valid JSON (${parsed.error}). It must hold {"tokens": [{"token": "...", "scope": "..."}]}.`,
      details: { path },
    });
  }
  const file = parseInput(tokensFileSchema, parsed.value, `tokens file ${path}`);
  return checkTokens(Array.isArray(file) ? file : file.tokens);
}
