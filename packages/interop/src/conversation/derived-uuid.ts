import { stableHash } from '@episodic/core/adapter';

/**
 * A name-based UUID (RFC 9562 version 8) derived from `name`: the same name always gives the same
 * id, so importing the same source twice addresses the same session, runs and ledger events. The
 * 122 free bits come from two independently seeded 96-bit hashes (not a security hash: ids only
 * need to be stable and distinct).
 */
export function derivedUuid(name: string): string {
  const hex = `${stableHash(name)}${stableHash(`${name}\u0000uuid`)}`.slice(0, 32).split('');
  hex[12] = '8';
  hex[16] = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  const text = hex.join('');
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
}
