import { McpServer, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import * as z from 'zod';
import {
  createEpisodicTools,
  type EpisodicTools,
  type EpisodicToolsOptions,
} from './episodic-tools.js';
import { toObjectInputSchema } from './object-input-schema.js';
import { toPortableJsonSchema } from './portable-json-schema.js';
import type { EpisodicToolDefinition } from './tools/tool-catalog.js';
import { EPISODIC_TOOL_OUTPUT_SCHEMAS } from './tools/tool-output-schemas.js';
import { VERSION } from './version.js';

/**
 * Options of `createEpisodicMcpServer`: the tool options (stores, scope, policy…), or `tools`
 * already created with `createEpisodicTools` (to share one set between many server instances, as
 * the HTTP transport does: a new instance per request, one task lifecycle per scope).
 */
export type EpisodicMcpServerOptions = EpisodicToolsOptions | { tools: EpisodicTools };

/** What the server tells clients about itself when they connect. */
export const EPISODIC_MCP_INSTRUCTIONS =
  'Episodic keeps a trustworthy record of tasks. Track each task as a task episode: call create_episode when it starts, add_episode_step after each meaningful action, and complete_episode when it ends (that computes a reward, a reflection and patterns). Before a new task, search_patterns finds what worked in similar tasks. memory_episodes_query, replay_session and list_runs read history; search_history finds past events by their words and search_runs the records of runs and task episodes; verify_history checks that none was changed outside Episodic. Errors are JSON {"error", "code"}; follow the error text to fix the call.';

const advertised = new WeakMap<EpisodicToolDefinition, StandardSchemaWithJSON>();
const advertisedOutput = new WeakMap<EpisodicToolDefinition, StandardSchemaWithJSON>();

/** A JSON Schema the SDK advertises but never enforces (our handler does the checking). */
function advertiseOnly(toJson: () => Record<string, unknown>): StandardSchemaWithJSON {
  let json: Record<string, unknown> | undefined;
  const once = () => {
    json ??= toJson();
    return json;
  };
  return {
    '~standard': {
      version: 1,
      vendor: 'episodic',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: once, output: once },
    },
  };
}

/**
 * The schema registered with the SDK for a tool: it advertises the JSON Schema generated from the
 * tool's zod schema, but accepts any arguments, because the SDK answers a failed check with its own
 * plain-text error. Our handler validates instead, so every bad input gets our JSON error shape.
 */
function advertisedSchema(definition: EpisodicToolDefinition): StandardSchemaWithJSON {
  let schema = advertised.get(definition);
  if (schema === undefined) {
    schema = advertiseOnly(() => {
      const { $schema: _dialect, ...rest } = z.toJSONSchema(definition.inputSchema, {
        io: 'input',
      }) as Record<string, unknown>;
      return toPortableJsonSchema(toObjectInputSchema(rest));
    });
    advertised.set(definition, schema);
  }
  return schema;
}

/**
 * The output schema registered for a tool: the JSON Schema of `EPISODIC_TOOL_OUTPUT_SCHEMAS`, with an
 * object root (MCP's 2025 wire format requires one; the union of the full and the shortened result
 * is nested under it). The SDK does not check results against it (the client does): a result is
 * built from the stores by code the output schema tests cover, and checking every result twice would
 * cost a parse of every answer.
 */
function advertisedOutputSchema(definition: EpisodicToolDefinition): StandardSchemaWithJSON {
  let schema = advertisedOutput.get(definition);
  if (schema === undefined) {
    schema = advertiseOnly(() => {
      const { $schema: _dialect, ...rest } = z.toJSONSchema(
        EPISODIC_TOOL_OUTPUT_SCHEMAS[definition.name],
        { io: 'output', unrepresentable: 'any' },
      ) as Record<string, unknown>;
      return toPortableJsonSchema({ type: 'object', ...rest });
    });
    advertisedOutput.set(definition, schema);
  }
  return schema;
}

/**
 * Creates the Episodic MCP server (an SDK `McpServer`) with the ten tools registered: the six task
 * episode tools of seed 004 and the read-only history tools. It is bound to one scope and holds no
 * transport or file system wiring; connect it to any transport (stdio at `@episodic/mcp/stdio`,
 * Streamable HTTP at `@episodic/mcp/http`, or the SDK's `InMemoryTransport` in tests).
 *
 * ```ts
 * const server = createEpisodicMcpServer({ stores: { ledger, runs, artifacts }, scope: 'my-project' });
 * await server.connect(transport);
 * ```
 */
export function createEpisodicMcpServer(options: EpisodicMcpServerOptions): McpServer {
  const tools =
    typeof options === 'object' && options !== null && 'tools' in options
      ? options.tools
      : createEpisodicTools(options);
  const server = new McpServer(
    { name: 'episodic', title: 'Episodic', version: VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: EPISODIC_MCP_INSTRUCTIONS },
  );
  for (const definition of tools.definitions) {
    server.registerTool(
      definition.name,
      {
        title: definition.title,
        description: definition.description,
        inputSchema: advertisedSchema(definition),
        outputSchema: advertisedOutputSchema(definition),
        annotations: definition.annotations,
      },
      (args: unknown) => tools.call(definition.name, args),
    );
  }
  return server;
}
