import { firstInvalidUtf8Offset, showBytes } from '@episodic/home';
import { UsageError } from './usage-error.js';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes bytes that must be UTF-8 text. Malformed bytes are a usage error (exit 2) naming the
 * byte offset, never a silent U+FFFD: what is stored must be what the file held.
 */
export function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return decoder.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8Offset(bytes);
    const shown = showBytes(bytes, offset);
    throw new UsageError(
      `${what} is not valid UTF-8: the bytes at offset ${offset} (${shown}) do not form a character. Nothing was changed; save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8) and run the command again.`,
      'VALIDATION_ERROR',
    );
  }
}
