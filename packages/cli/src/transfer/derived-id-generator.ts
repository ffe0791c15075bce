import { stableHash } from '@episodic/core/adapter';
import type { IdGenerator } from '@opentelemetry/sdk-trace';

/**
 * Trace and span ids derived from `seed` and a counter instead of random bytes, so exporting the
 * same runs again writes the same ids (an archive can be diffed, and a backend that deduplicates by
 * id keeps one copy).
 */
export function createDerivedIdGenerator(seed: string): IdGenerator {
  let counter = 0;
  const hex = (length: number) => {
    counter++;
    const digits = `${stableHash(`${seed}\u0000${counter}`)}${stableHash(`${counter}\u0000${seed}`)}`;
    const id = digits.slice(0, length);
    // An all-zero id is invalid in OpenTelemetry; it cannot come out of two 96-bit hashes in
    // practice, but the rule is cheap to keep.
    return /^0+$/.test(id) ? `${id.slice(0, -1)}1` : id;
  };
  return { generateTraceId: () => hex(32), generateSpanId: () => hex(16) };
}
