import {
  type AssembleOptions,
  type AssemblyManifest,
  assemble,
  type Session,
} from '@episodic/core';
import { invalidField, parseInput } from '@episodic/core/adapter';
import type { ModelMessage } from 'ai';
import * as z from 'zod';
import { EPISODIC_PROVIDER_KEY } from './convert/history-tag.js';
import { convertItems } from './convert/model-messages.js';

/** Options of `sessionMessages`: how to assemble the history, and the new input to add after it. */
export interface SessionMessagesOptions extends AssembleOptions {
  /**
   * The new input, added after the history without the history mark, so the middleware records
   * it: text (a user message), one `ModelMessage` or several.
   */
  input?: string | ModelMessage | readonly ModelMessage[];
}

/** The assembled history as AI SDK messages, and the manifest that explains it. */
export interface AssembledModelMessages {
  /** The history (each message marked `providerOptions.episodic`), then the new input. */
  readonly messages: ModelMessage[];
  /** What was sent, what was not and why (`explainEpisode(manifest, id)` answers for one episode). */
  readonly manifest: AssemblyManifest;
}

const messageSchema = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string().min(1) }))]),
});

const inputSchema = z.union([z.string().min(1), messageSchema, z.array(messageSchema)]).optional();

const sessionSchema = z.custom<Session>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Session).log?.read === 'function' &&
    typeof (value as Session).log?.lastId === 'number',
  'must be an Episodic session (createSession or loadSession from @episodic/core)',
);

function inputMessages(input: SessionMessagesOptions['input']): ModelMessage[] {
  if (input === undefined) return [];
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return Array.isArray(input) ? [...(input as ModelMessage[])] : [input as ModelMessage];
}

/**
 * Assembles the session's history for the next `generateText` / `streamText` call, with core's
 * `assemble`: from the last checkpoint (or `startAt`), within the token budget (`maxTokens`), with
 * calls that never got an output paired with a synthesized one, boundaries rendered as user
 * messages and long tool outputs shortened. Returns the AI SDK messages and the manifest. The
 * history messages carry `providerOptions.episodic.episodeIds` (providers ignore the key), which is
 * how `episodicMiddleware` knows not to record them again; `input` is added after them unmarked.
 */
export async function assembleModelMessages(
  session: Session,
  options: SessionMessagesOptions = {},
): Promise<AssembledModelMessages> {
  parseInput(sessionSchema, session, 'sessionMessages session');
  if (typeof options !== 'object' || options === null) {
    throw invalidField(
      'sessionMessages',
      'options',
      options,
      'must be an object of assembly options',
    );
  }
  const { input, ...assembly } = options;
  const checkedInput = parseInput(inputSchema, input, 'sessionMessages options.input');
  const { items, manifest } = await assemble(
    session.log as Parameters<typeof assemble>[0],
    assembly,
  );
  const { messages, sources } = convertItems(items);
  const marked = messages.map((message, index) => {
    const episodeIds = [
      ...new Set(
        (sources[index] ?? [])
          .map((itemIndex) => manifest.items[itemIndex]?.episodeId)
          .filter((id): id is number => id !== undefined),
      ),
    ];
    return {
      ...message,
      providerOptions: { ...message.providerOptions, [EPISODIC_PROVIDER_KEY]: { episodeIds } },
    } as ModelMessage;
  });
  return {
    messages: [...marked, ...inputMessages(checkedInput as SessionMessagesOptions['input'])],
    manifest,
  };
}

/**
 * The session's assembled history as AI SDK `ModelMessage`s, followed by `options.input`: pass it
 * as `messages` to `generateText` or `streamText`. See `assembleModelMessages` for the manifest.
 */
export async function sessionMessages(
  session: Session,
  options?: SessionMessagesOptions,
): Promise<ModelMessage[]> {
  return (await assembleModelMessages(session, options)).messages;
}
