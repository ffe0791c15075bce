import * as z from 'zod';
import type { FunctionCallItem, InputItem } from '../schema/input-item.js';
import { parseInput } from '../validation/parse-input.js';
import type { AssemblyDrop, AssemblyNote } from './manifest.js';
import { DEFAULT_MAX_TOOL_OUTPUT_CHARS, truncateToolOutput } from './truncate-tool-output.js';

/** An input item with where it came from, as the normalize step sees it. */
export interface SourcedItem {
  readonly item: InputItem;
  /** The episode it was rendered from (for a synthesized output: the call's episode). */
  readonly episodeId?: number;
  /** The plugin that returned it (temporary input). */
  readonly plugin?: string;
  /** The turn of its episode, when the episode had one. */
  readonly turnId?: string;
  /** True for an item normalization made up; it is not in the log. */
  readonly synthetic?: boolean;
  /** What normalization did to it. */
  readonly note?: AssemblyNote;
}

/**
 * What to do with a tool call that has no output later in the input (e.g. after an interrupt):
 * - `synthesize`: add an output right after the call's block saying the call was interrupted
 *   (providers reject unpaired calls);
 * - `keep`: send the call as it is (seed 000's behaviour);
 * - `drop`: leave the call out.
 */
export type DanglingCallPolicy = 'synthesize' | 'keep' | 'drop';

export interface NormalizeOptions {
  /**
   * How to heal a call without an output.
   * @default 'synthesize'
   */
  readonly danglingCalls?: DanglingCallPolicy;
  /**
   * String tool outputs longer than this are cut to their first and last halves.
   * @default 8000
   */
  readonly maxToolOutputChars?: number;
}

/** The items to send, and the items left out with the reason for each. */
export interface NormalizeResult {
  readonly items: SourcedItem[];
  readonly dropped: AssemblyDrop[];
}

/**
 * The normalize step of assembly. Replace it through `assemble`'s `normalize` option; wrap
 * `normalizeItems` to keep the default rules and add your own.
 */
export type Normalizer = (
  items: readonly SourcedItem[],
  options: Required<NormalizeOptions>,
) => NormalizeResult;

/** The output sent for a call that never got one (`danglingCalls: 'synthesize'`). */
export const INTERRUPTED_CALL_OUTPUT =
  'No result: this tool call was interrupted before it returned. It may have partially run; check before repeating it.';

const sourcedItemsSchema = z.array(
  z.custom<SourcedItem>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as SourcedItem).item === 'object' &&
      (value as SourcedItem).item !== null &&
      typeof (value as SourcedItem).item.type === 'string',
    'must be { item, episodeId?, plugin? } with an input item',
  ),
);

export const normalizeOptionsSchema = z.strictObject({
  danglingCalls: z.enum(['synthesize', 'keep', 'drop']).optional(),
  maxToolOutputChars: z.number().int().min(2).max(Number.MAX_SAFE_INTEGER).optional(),
});

function sourceOf(entry: SourcedItem): Pick<AssemblyDrop, 'episodeId' | 'plugin'> {
  return {
    ...(entry.episodeId === undefined ? {} : { episodeId: entry.episodeId }),
    ...(entry.plugin === undefined ? {} : { plugin: entry.plugin }),
  };
}

function isToolItem(entry: SourcedItem | undefined): boolean {
  return entry?.item.type === 'function_call' || entry?.item.type === 'function_call_output';
}

function callIdOf(item: InputItem): string {
  return String((item as { call_id?: unknown }).call_id);
}

/**
 * The default normalize step, in order:
 * 1. drops tool outputs whose call was not seen earlier in the input (orphans);
 * 2. shortens string tool outputs longer than `maxToolOutputChars` (see `truncateToolOutput`);
 * 3. heals calls that have no later output, per `danglingCalls`.
 * The input is not changed; changed items are new objects.
 */
export function normalizeItems(
  items: readonly SourcedItem[],
  options: NormalizeOptions = {},
): NormalizeResult {
  parseInput(sourcedItemsSchema, items, 'normalizeItems items');
  const settings = parseInput(normalizeOptionsSchema, options, 'normalizeItems options');
  return normalizeTrusted(items, {
    danglingCalls: settings.danglingCalls ?? 'synthesize',
    maxToolOutputChars: settings.maxToolOutputChars ?? DEFAULT_MAX_TOOL_OUTPUT_CHARS,
  });
}

/** `normalizeItems` for input assembly built and validated itself (no second validation pass). */
export function normalizeTrusted(
  items: readonly SourcedItem[],
  options: Required<NormalizeOptions>,
): NormalizeResult {
  const { danglingCalls } = options;
  const maxChars = options.maxToolOutputChars;
  const dropped: AssemblyDrop[] = [];

  const paired: SourcedItem[] = [];
  const seenCalls = new Set<string>();
  for (const entry of items) {
    const { item } = entry;
    if (item.type === 'function_call') {
      seenCalls.add(callIdOf(item));
      paired.push(entry);
    } else if (item.type === 'function_call_output') {
      const callId = callIdOf(item);
      if (!seenCalls.has(callId)) {
        dropped.push({
          ...sourceOf(entry),
          reason: 'orphan-output',
          detail: `a tool output for call_id ${JSON.stringify(callId)} with no earlier call in the input; providers reject an output without its call.`,
        });
        continue;
      }
      paired.push(truncated(entry, maxChars));
    } else {
      paired.push(entry);
    }
  }

  const answeredLater = new Set<string>();
  const dangling = new Set<number>();
  for (let index = paired.length - 1; index >= 0; index--) {
    const { item } = paired[index] as SourcedItem;
    if (item.type === 'function_call_output') answeredLater.add(callIdOf(item));
    else if (item.type === 'function_call' && !answeredLater.has(callIdOf(item)))
      dangling.add(index);
  }
  if (dangling.size === 0) return { items: paired, dropped };

  const healed: SourcedItem[] = [];
  let pending: SourcedItem[] = [];
  paired.forEach((entry, index) => {
    if (!dangling.has(index)) {
      healed.push(entry);
    } else {
      const call = entry.item as FunctionCallItem;
      const label = `call ${JSON.stringify(call.call_id)} (${call.name})`;
      if (danglingCalls === 'drop') {
        dropped.push({
          ...sourceOf(entry),
          reason: 'dangling-call',
          detail: `tool ${label} has no output, and danglingCalls is 'drop'.`,
        });
      } else if (danglingCalls === 'keep') {
        healed.push({
          ...entry,
          note: {
            kind: 'dangling-call-kept',
            detail: `tool ${label} has no output and was sent unpaired (danglingCalls: 'keep')`,
          },
        });
      } else {
        healed.push(entry);
        pending.push({
          ...sourceOf(entry),
          ...(entry.turnId === undefined ? {} : { turnId: entry.turnId }),
          item: {
            type: 'function_call_output',
            call_id: call.call_id,
            output: INTERRUPTED_CALL_OUTPUT,
          },
          synthetic: true,
          note: {
            kind: 'synthesized-output',
            detail: `tool ${label} had no output; a synthetic output saying it was interrupted was sent`,
          },
        });
      }
    }
    // Outputs go right after the block of calls and outputs the call belongs to: chat providers
    // require tool results to follow the assistant message that made the calls.
    if (pending.length > 0 && !isToolItem(paired[index + 1])) {
      healed.push(...pending);
      pending = [];
    }
  });
  return { items: healed, dropped };
}

function truncated(entry: SourcedItem, maxChars: number): SourcedItem {
  const output = (entry.item as { output?: unknown }).output;
  if (typeof output !== 'string' || output.length <= maxChars) return entry;
  const { text, omitted } = truncateToolOutput(output, maxChars);
  return {
    ...entry,
    item: { ...entry.item, output: text },
    note: {
      kind: 'truncated-output',
      detail: `tool output shortened from ${output.length} to ${text.length} characters: ${omitted} characters in the middle omitted`,
    },
  };
}
