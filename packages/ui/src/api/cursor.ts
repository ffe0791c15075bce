import { invalidField } from '@episodic/core/adapter';

/** Encodes a page position as an opaque URL-safe cursor. */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** Decodes a cursor made by `encodeCursor`; a damaged one is a `VALIDATION_ERROR` naming `field`. */
export function decodeCursor<Position>(
  cursor: string,
  field: string,
  check: (value: unknown) => value is Position,
): Position {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (!check(value)) {
    throw invalidField(
      'page cursor',
      field,
      cursor,
      'is not a cursor this UI made: open the first page and follow its "next" link',
    );
  }
  return value;
}
