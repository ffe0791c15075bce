import { z } from 'zod';

/**
 * A schema compiled ahead of time on first use (zod's `z.compile`), for hot paths such as
 * `append` and restore. The compiled clone parses the same way and reports the same issues; it
 * falls back to the interpreted parser wherever compilation is not possible (e.g. no `new Function`).
 */
export function lazyCompiled<Schema extends z.ZodType>(schema: Schema): () => Schema {
  let compiled: Schema | undefined;
  return () => {
    if (compiled === undefined) {
      try {
        compiled = z.compile(schema);
      } catch {
        compiled = schema;
      }
    }
    return compiled;
  };
}
