import {
  type AccessPolicy,
  type ArtifactStore,
  compileAccessPolicy,
  createTaskLifecycle,
  EpisodicError,
  type Ledger,
  type QualityGateOptions,
  type RunStore,
} from '@episodic/core';
import { lazyCompiled, parseInput } from '@episodic/core/adapter';
import { accessPolicySchema } from '@episodic/core/schemas';
import * as z from 'zod';
import type { EpisodicMcpLogger } from './logger.js';
import { MAX_TOOL_TEXT } from './sanitize-text.js';
import { bindScope } from './scope/bound-scope.js';
import { createScopedArtifactStore } from './scope/scoped-artifact-store.js';
import { createScopedRunView } from './scope/scoped-run-store.js';
import { toToolErrorBody } from './tool-error.js';
import { renderToolJson } from './tool-output.js';
import { historyHandlers } from './tools/history-tools.js';
import { lifecycleHandlers } from './tools/lifecycle-tools.js';
import { searchPatterns } from './tools/search-patterns.js';
import {
  EPISODIC_TOOL_DEFINITIONS,
  type EpisodicToolDefinition,
  type EpisodicToolName,
} from './tools/tool-catalog.js';
import type { ToolContext, ToolHandler } from './tools/tool-context.js';

/** The stores the tools read and write. Every scope shares them; the tools keep scopes apart. */
export interface EpisodicMcpStores {
  /** The scoped ledger (`memory_episodes_query`, `replay_session` with source "ledger"). */
  ledger: Ledger;
  /** Runs: task episodes are runs (`list_runs`, `replay_session` with source "runs"). */
  runs: RunStore;
  /** Artifacts: learned patterns and reflections, and task metadata (`search_patterns`). */
  artifacts: ArtifactStore;
}

/** Options of `createEpisodicTools`. */
export interface EpisodicToolsOptions {
  /**
   * The stores, or a function that opens them on first use (the bin opens its database after
   * answering `initialize`, so start-up does not wait for it).
   */
  stores: EpisodicMcpStores | (() => Promise<EpisodicMcpStores>);
  /**
   * The one scope these tools serve (normalized: `"My Project"` → `my-project`). No tool returns
   * another scope's data; a `scope` argument naming another scope is refused.
   * @default 'default'
   */
  scope?: string | undefined;
  /**
   * An access policy (seed 003 ABAC): only task episodes, events and patterns whose metadata
   * satisfies it are visible, and new task episodes must satisfy it.
   * @default undefined (no restriction within the scope)
   */
  policy?: AccessPolicy | undefined;
  /** The clock of the task lifecycle. @default () => new Date() */
  now?: (() => Date) | undefined;
  /** Task episode ids. @default () => globalThis.crypto.randomUUID() */
  generateId?: (() => string) | undefined;
  /** The lifecycle's quality gate. @default undefined (off) */
  qualityGate?: QualityGateOptions | undefined;
  /**
   * The most characters one tool result's text may have; longer results are shortened (and say
   * so). @default 65536
   */
  maxResultChars?: number | undefined;
  /** Where failures are logged (details for the operator; clients get generic messages). @default no logging */
  logger?: EpisodicMcpLogger | undefined;
}

/**
 * A tool result as MCP carries it: one text block of JSON and, on success, the same JSON as
 * `structuredContent` (described by the tool's `outputSchema`); `isError` on failure.
 */
export interface EpisodicToolResult {
  [key: string]: unknown;
  /** The result as JSON text, for clients that do not read `structuredContent`. */
  content: Array<{ type: 'text'; text: string }>;
  /**
   * The parsed text (present on success): the same fields, shortened the same way. An integer
   * beyond 2^53 in a payload is exact only in the text.
   */
  structuredContent?: Record<string, unknown>;
  isError?: true;
}

/** The tools of one scope, independent of any transport. */
export interface EpisodicTools {
  /** The bound scope (normalized). */
  readonly scope: string;
  /** The tool definitions, in `tools/list` order. */
  readonly definitions: readonly EpisodicToolDefinition[];
  /**
   * Runs a tool. Never throws: bad arguments, unknown tools and failures are results with
   * `isError: true` and the JSON body `{"error": "...", "code": "..."}`.
   */
  call(name: string, args: unknown): Promise<EpisodicToolResult>;
  /** Opens the stores now (when given as a function) instead of on the first call. */
  ready(): Promise<void>;
}

const functionSchema = z.custom<(...args: never[]) => unknown>(
  (value) => typeof value === 'function',
  'must be a function',
);

const optionsSchema = z.strictObject({
  stores: z.custom<EpisodicToolsOptions['stores']>(
    (value) =>
      typeof value === 'function' ||
      (typeof value === 'object' &&
        value !== null &&
        ['ledger', 'runs', 'artifacts'].every(
          (key) => typeof (value as Record<string, unknown>)[key] === 'object',
        )),
    'must be { ledger, runs, artifacts } (see openEpisodicStores) or a function returning them',
  ),
  scope: z.string().optional(),
  policy: accessPolicySchema.optional(),
  now: functionSchema.optional(),
  generateId: functionSchema.optional(),
  qualityGate: z.unknown().optional(),
  maxResultChars: z.number().int().min(1_024).max(10_000_000).optional(),
  logger: functionSchema.optional(),
});

/**
 * Creates the Episodic tools of one scope: the six task episode tools of seed 004 and the
 * read-only history tools, each validating its own arguments (so every bad input is answered with
 * the same JSON error shape) and returning sanitized, bounded JSON text.
 */
export function createEpisodicTools(options: EpisodicToolsOptions): EpisodicTools {
  const checked = parseInput(optionsSchema, options, 'Episodic MCP options');
  const scope = bindScope(checked.scope);
  const policy = checked.policy as AccessPolicy | undefined;
  const visible = policy === undefined ? undefined : compileAccessPolicy(policy);
  const maxResultChars = checked.maxResultChars ?? MAX_TOOL_TEXT;
  const logger = options.logger;

  let opening: Promise<ToolContext> | undefined;
  const open = async (): Promise<ToolContext> => {
    const stores = typeof options.stores === 'function' ? await options.stores() : options.stores;
    const runs = createScopedRunView({ runs: stores.runs, scope, visible });
    const artifacts = createScopedArtifactStore(stores.artifacts, scope);
    const lifecycle = createTaskLifecycle({
      runs: runs.runs,
      artifacts,
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.generateId === undefined ? {} : { generateId: options.generateId }),
      ...(options.qualityGate === undefined ? {} : { qualityGate: options.qualityGate }),
    });
    return {
      scope,
      ledger: stores.ledger,
      runs,
      artifacts,
      lifecycle,
      policy,
      visible,
      maxResultChars,
      logger,
    };
  };
  const context = (): Promise<ToolContext> => {
    opening ??= open().catch((error: unknown) => {
      // A failed open is retried by the next call instead of failing every call forever.
      opening = undefined;
      throw error;
    });
    return opening;
  };

  const handlers: Record<EpisodicToolName, ToolHandler> = {
    ...lifecycleHandlers,
    ...historyHandlers,
    search_patterns: searchPatterns as ToolHandler,
  };
  const byName = new Map(
    EPISODIC_TOOL_DEFINITIONS.map((definition) => [definition.name, definition]),
  );
  // Arguments are checked on every call: each tool's schema is compiled once it is in use (the
  // compiled clone accepts the same arguments and reports the same issues).
  const acceptSchemas = new Map(
    EPISODIC_TOOL_DEFINITIONS.map((definition) => [
      definition.name,
      lazyCompiled(definition.acceptSchema),
    ]),
  );

  const errorResult = (error: unknown, tool: string): EpisodicToolResult => ({
    content: [{ type: 'text', text: renderToolJson(toToolErrorBody(error, tool, logger)) }],
    isError: true,
  });

  return {
    scope,
    definitions: EPISODIC_TOOL_DEFINITIONS,
    async call(name, args) {
      const definition = byName.get(name as EpisodicToolName);
      if (definition === undefined) {
        return errorResult(
          new EpisodicError({
            code: 'VALIDATION_ERROR',
            message: `Unknown tool "${String(name).slice(0, 64)}". The tools are ${EPISODIC_TOOL_DEFINITIONS.map((tool) => tool.name).join(', ')}.`,
          }),
          'the call',
        );
      }
      try {
        // Arguments are validated before anything else, so a bad id never reaches a store.
        const acceptSchema = acceptSchemas.get(definition.name) as () => z.ZodType;
        const parsed = parseInput(acceptSchema(), args ?? {}, `${name} arguments`);
        const result = await handlers[definition.name](parsed as never, await context());
        const text = renderToolJson(result, maxResultChars);
        return {
          content: [{ type: 'text', text }],
          // Parsed from the text, so both say the same (every tool's result is a JSON object).
          structuredContent: JSON.parse(text) as Record<string, unknown>,
        };
      } catch (error) {
        return errorResult(error, name);
      }
    },
    async ready() {
      await context();
    },
  };
}
