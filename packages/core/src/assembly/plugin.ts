import * as z from 'zod';
import type { Episodic } from '../episodic/create-episodic.js';
import { EpisodicError } from '../errors/episodic-error.js';
import { type InputItem, inputItemSchema } from '../schema/input-item.js';
import { frozenJsonCopy } from '../util/json.js';
import { toInputIssues } from '../validation/parse-input.js';

/** What a plugin's `extendInput` receives. */
export interface PluginInput {
  /**
   * The log being assembled (in a session: the turn's working fork). Reading it is free; an
   * episode the plugin appends is persisted with the turn, but is not part of this model call.
   */
  readonly episodic: Episodic;
  /** The current turn, when assembling for one. */
  readonly turnId?: string;
  /** The session context (or `assemble`'s `context` option), read-only. */
  readonly context: Readonly<Record<string, unknown>>;
  /** Fires when the turn is interrupted or aborted; long-running plugins should stop. */
  readonly signal: AbortSignal;
}

/** What `extendInput` may return: items, or nothing. */
// biome-ignore lint/suspicious/noConfusingVoidType: a plugin that adds nothing may simply not return.
export type PluginReturn = readonly InputItem[] | undefined | null | void;

/**
 * A plugin that adds temporary model input. Its items are appended after the history, normalized
 * with it, sent for this model call only and never persisted.
 */
export interface AssemblyPlugin {
  /** A unique, non-empty name; errors and the manifest name the plugin by it. */
  readonly name: string;
  /** Returns temporary input items for this model call (or nothing). A throw fails the call with `PLUGIN_ERROR`. */
  extendInput?(input: PluginInput): PluginReturn | Promise<PluginReturn>;
}

export const pluginSchema = z.custom<AssemblyPlugin>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AssemblyPlugin).name === 'string' &&
    (value as AssemblyPlugin).name.length > 0 &&
    ((value as AssemblyPlugin).extendInput === undefined ||
      typeof (value as AssemblyPlugin).extendInput === 'function'),
  'must be { name: non-empty string, extendInput?: function }',
);

/** A list of plugins with unique names. */
export const pluginsSchema = z.array(pluginSchema).superRefine((plugins, context) => {
  const seen = new Set<string>();
  plugins.forEach((plugin, index) => {
    if (seen.has(plugin.name)) {
      context.addIssue({
        code: 'custom',
        path: [index, 'name'],
        message: `is a duplicate plugin name ${JSON.stringify(plugin.name)}: give each plugin its own name`,
      });
    }
    seen.add(plugin.name);
  });
});

const returnedItemsSchema = z.union([z.array(inputItemSchema), z.undefined(), z.null()]);

function pluginError(
  plugin: string,
  message: string,
  cause?: unknown,
  details = {},
): EpisodicError {
  return new EpisodicError({
    code: 'PLUGIN_ERROR',
    message: `Plugin ${JSON.stringify(plugin)} failed in extendInput: ${message}. Fix or remove the plugin; nothing was sent to the model and nothing was committed.`,
    details: { plugin, ...details },
    cause,
  });
}

/** Runs every plugin's `extendInput` in order and returns its validated items by plugin. */
export async function runPlugins(
  plugins: readonly AssemblyPlugin[],
  input: PluginInput,
): Promise<Array<{ plugin: string; items: InputItem[] }>> {
  const results: Array<{ plugin: string; items: InputItem[] }> = [];
  for (const plugin of plugins) {
    if (plugin.extendInput === undefined) continue;
    let returned: unknown;
    try {
      returned = await plugin.extendInput(input);
    } catch (error) {
      if (EpisodicError.hasCode(error, 'ABORTED')) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw pluginError(plugin.name, `it threw "${reason}"`, error);
    }
    const parsed = returnedItemsSchema.safeParse(returned);
    if (!parsed.success) {
      const issues = toInputIssues(parsed.error.issues, returned);
      const first = issues[0];
      throw pluginError(
        plugin.name,
        `it returned invalid input items (${first ? `${first.field} ${first.message}, got ${first.value}` : 'not an array of items'})`,
        parsed.error,
        { issues },
      );
    }
    const items = (parsed.data ?? []).map((item, index) => {
      try {
        return frozenJsonCopy(item, `item ${index} from plugin ${plugin.name}`);
      } catch (error) {
        throw pluginError(
          plugin.name,
          `item ${index} cannot be sent as JSON (${(error as Error).message})`,
          error,
        );
      }
    });
    results.push({ plugin: plugin.name, items });
  }
  return results;
}
