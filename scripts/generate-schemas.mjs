#!/usr/bin/env node
// @ts-check
// Generates the JSON Schemas (draft 2020-12) of every Episodic format from the zod schemas of the
// built packages (`scripts/schema-registry.mjs` lists them), into `schemas/`:
//
//   schemas/<package>/<name>.<version>.json   one schema per format version, with a versioned $id
//   schemas/index.json                        what there is: name, version, package, file, $id
//
// Each generated schema is compiled with Ajv (2020-12, strict) before anything is written.
//
// Usage: node scripts/generate-schemas.mjs            (write; `pnpm schemas` builds first)
//        node scripts/generate-schemas.mjs --check    (regenerate into a temp folder and compare:
//                                                      exit 1 when schemas/ is not current)
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as core from '@episodic/core/schemas';
import { toPortableJsonSchema } from '@episodic/mcp';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as z from 'zod';
import { SCHEMAS } from './schema-registry.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const SCHEMA_BASE = 'https://raw.githubusercontent.com/episodic-dev/episodic/main/schemas/';
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** @param {string} packageName */
const folderOf = (packageName) => packageName.replace(/^@episodic\//, '');

/** @param {{ name: string, version: string, package: string }} entry */
export const fileOf = (entry) => `${folderOf(entry.package)}/${entry.name}.${entry.version}.json`;

/**
 * @param {import('zod').ZodType} schema
 * @returns {Record<string, unknown>}
 */
function toJson(schema) {
  const { $schema: _dialect, ...json } = /** @type {Record<string, unknown>} */ (
    z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      // What a reader accepts: defaults make fields optional, transforms are described by their input.
      io: 'input',
      unrepresentable: 'any',
      override: overrideJson,
    })
  );
  return json;
}

// Rules a zod refinement or transform enforces that JSON Schema can state.
const KNOWN_ITEM_SCHEMAS = [
  core.messageItemSchema,
  core.functionCallItemSchema,
  core.functionCallOutputItemSchema,
  core.reasoningItemSchema,
];

/** @param {{ zodSchema: unknown, jsonSchema: Record<string, unknown> }} context */
function overrideJson(context) {
  if (context.zodSchema === core.metadataSchema) {
    context.jsonSchema.maxProperties = core.METADATA_MAX_KEYS;
  }
  if (context.zodSchema === core.inputItemSchema) {
    // A known item kind must match its schema; any other non-empty `type` passes through.
    for (const key of Object.keys(context.jsonSchema)) delete context.jsonSchema[key];
    Object.assign(context.jsonSchema, {
      anyOf: [
        ...KNOWN_ITEM_SCHEMAS.map((schema) => toJson(schema)),
        {
          type: 'object',
          properties: {
            type: { type: 'string', minLength: 1, not: { enum: [...core.KNOWN_ITEM_TYPES] } },
          },
          required: ['type'],
          additionalProperties: {},
        },
      ],
    });
  }
}

/**
 * The schema of any run file line: a known record type must match its own schema; a custom
 * `x.<org>.<name>` record or a type this version does not know is kept by readers.
 */
function runRecordLine() {
  /** @type {Record<string, unknown>} */
  const defs = {};
  const allOf = core.RUN_RECORD_TYPES.map((type) => {
    defs[type] = toJson(core.runRecordSchemas[type]);
    return {
      if: { properties: { type: { const: type } }, required: ['type'] },
      // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword, not a thenable.
      then: { $ref: `#/$defs/${type}` },
    };
  });
  return {
    type: 'object',
    properties: { type: { type: 'string', minLength: 1 } },
    required: ['type'],
    additionalProperties: {},
    allOf,
    $defs: defs,
  };
}

/** Every schema, keyed by file. */
function generate() {
  /** @type {Map<string, Record<string, unknown>>} */
  const files = new Map();
  /** @type {Array<Record<string, string>>} */
  const index = [];
  const add = (
    /** @type {{ name: string, version: string, package: string, title: string, description: string }} */ entry,
    /** @type {Record<string, unknown>} */ json,
  ) => {
    const file = fileOf(entry);
    if (files.has(file)) throw new Error(`two registry entries write ${file}`);
    const $id = `${SCHEMA_BASE}${file}`;
    files.set(file, {
      $schema: DIALECT,
      $id,
      ...json,
      title: entry.title,
      description: entry.description,
    });
    index.push({
      name: entry.name,
      version: entry.version,
      package: entry.package,
      file,
      $id,
      title: entry.title,
    });
  };
  add(
    {
      name: 'run-record',
      version: 'v1',
      package: '@episodic/core',
      title: 'Run file line',
      description:
        'Any line of a run file (sessions/YYYY/MM/DD/<run_id>.jsonl): the header first, then records. A record of a known type must match its schema; other types (custom x.<org>.<name>, or newer) are kept as they are.',
    },
    runRecordLine(),
  );
  for (const entry of SCHEMAS) {
    const json = toJson(entry.schema);
    // MCP clients read these (tool arguments and results): spelled as tools/list advertises them,
    // with no array `type` and no unconstrained schema, by the server's own rewrite.
    add(entry, entry.package === '@episodic/mcp' ? toPortableJsonSchema(json) : json);
  }
  index.sort((left, right) => (left.file < right.file ? -1 : 1));
  return { files, index };
}

/** Compiles every schema with Ajv so a schema that is not valid 2020-12 never ships. */
function compileAll(/** @type {Map<string, Record<string, unknown>>} */ files) {
  const ajv = new Ajv2020({ strict: true, allErrors: false, allowUnionTypes: true });
  addFormats.default(ajv);
  for (const [file, schema] of files) {
    try {
      ajv.compile(schema);
    } catch (error) {
      throw new Error(
        `${file} is not a valid JSON Schema: ${/** @type {Error} */ (error).message}`,
      );
    }
  }
}

/** @param {string} directory */
function write(directory) {
  const { files, index } = generate();
  compileAll(files);
  for (const [file, schema] of files) {
    mkdirSync(dirname(join(directory, file)), { recursive: true });
    writeFileSync(join(directory, file), `${JSON.stringify(schema, null, 2)}\n`);
  }
  writeFileSync(join(directory, 'index.json'), `${JSON.stringify({ schemas: index }, null, 2)}\n`);
  return files.size;
}

/** Every .json file under `directory`, relative. @param {string} directory */
function jsonFiles(directory, prefix = '') {
  /** @type {string[]} */
  const found = [];
  for (const name of readdirSync(join(directory, prefix))) {
    const path = join(prefix, name);
    if (statSync(join(directory, path)).isDirectory()) found.push(...jsonFiles(directory, path));
    else if (name.endsWith('.json')) found.push(path);
  }
  return found.sort();
}

const target = join(root, 'schemas');
if (process.argv.includes('--check')) {
  const temporary = mkdtempSync(join(tmpdir(), 'episodic-schemas-'));
  try {
    write(temporary);
    const fresh = jsonFiles(temporary);
    let current = [];
    try {
      current = jsonFiles(target);
    } catch {
      // No schemas/ yet.
    }
    const problems = [
      ...fresh.filter((file) => !current.includes(file)).map((file) => `missing ${file}`),
      ...current
        .filter((file) => !fresh.includes(file))
        .map((file) => `stale ${file} (no format writes it any more)`),
      ...fresh
        .filter((file) => current.includes(file))
        .filter(
          (file) =>
            readFileSync(join(temporary, file), 'utf8') !==
            readFileSync(join(target, file), 'utf8'),
        )
        .map((file) => `out of date ${file}`),
    ];
    if (problems.length > 0) {
      console.error(
        `schemas/ is not current (a zod schema changed without regenerating):\n${problems.map((line) => `  - ${line}`).join('\n')}\nRun "pnpm schemas" and commit the result.`,
      );
      process.exit(1);
    }
    console.log(`schemas: ${fresh.length} files current`);
  } finally {
    rmSync(temporary, { recursive: true, force: true });
  }
} else {
  for (const file of (() => {
    try {
      return jsonFiles(target);
    } catch {
      return [];
    }
  })())
    rmSync(join(target, file));
  const count = write(target);
  console.log(`schemas: wrote ${count} schemas to ${relative(process.cwd(), target) || '.'}`);
}
