import * as z from 'zod';

/**
 * How many calls use the interpreted schema before it is compiled. Compiling costs about as much as
 * a hundred interpreted parses of a small value (1–3 ms, most of a short-lived CLI command's
 * validation budget), so a schema used once or twice is never compiled; a hot path switches after
 * a few calls.
 */
const INTERPRETED_CALLS = 8;

/**
 * A schema compiled ahead of time once it is in use (zod's `z.compile`), for hot paths such as
 * `append` and restore. The first calls get the schema itself; later calls get the compiled clone,
 * which parses the same way and reports the same issues. Where compilation is not possible (e.g.
 * no `new Function`) the schema itself is used throughout.
 */
export function lazyCompiled<Schema extends z.ZodType>(schema: Schema): () => Schema {
  let compiled: Schema | undefined;
  let calls = 0;
  return () => {
    if (compiled !== undefined) return compiled;
    if (++calls <= INTERPRETED_CALLS) return schema;
    try {
      compiled = z.compile(schema);
    } catch {
      compiled = schema;
    }
    return compiled;
  };
}
