/** Copies a package's JSON Schemas from `schemas/` into `<dist>/schemas/` (see ship-schemas.mjs). */
export function shipSchemas(packageName: string, dist: string): void;
