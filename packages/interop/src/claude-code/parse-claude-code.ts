import type { InputItem } from '@episodic/core';
import {
  countAt,
  isRecord,
  type JsonObjectLine,
  readJsonObjectLines,
  stringAt,
  without,
} from '../conversation/json-lines.js';
import type {
  ImportProblem,
  SourceConversation,
  SourceEntry,
  SourceModelCall,
} from '../conversation/source-conversation.js';
import { textOfContent } from '../conversation/text-of.js';

/**
 * Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`): one JSON entry
 * per line. Every entry with a `uuid` is a link of a tree through `parentUuid`: `user` and
 * `assistant` entries carry an Anthropic message, and since Claude Code 2.x `progress`, `system`,
 * `attachment` and other entries sit on the same chain between them. `isSidechain` entries are a
 * sub-agent's own thread (also written to `<session>/subagents/agent-<id>.jsonl`, with `agentId`);
 * `summary` entries summarize a conversation up to their `leafUuid`; `system` `compact_boundary`
 * entries and `isCompactSummary` user messages mark compactions; anything else
 * (`file-history-snapshot`, `queue-operation`, `progress`, …) has no model meaning.
 */

const MESSAGE_TYPES = new Set(['user', 'assistant', 'system']);

/** Entry fields the import maps; everything else of an entry is kept in the episode's `raw`. */
const MAPPED_FIELDS = ['type', 'uuid', 'parentUuid', 'timestamp', 'isSidechain', 'message'];
const MAPPED_MESSAGE_FIELDS = ['role', 'content', 'id', 'model', 'usage', 'stop_reason'];

/** An entry with a `uuid`: a link of the conversation tree, a message or not. */
interface Link extends JsonObjectLine {
  readonly uuid: string;
  /** `parentUuid`, or after a compaction (`parentUuid: null`) its `logicalParentUuid`. */
  readonly parent: string | undefined;
  readonly type: string;
  readonly sidechain: boolean;
  /** A `user`, `assistant` or `system` entry: what the import maps to episodes. */
  readonly message: boolean;
}

/** A link that is a message entry. */
type Node = Link & { readonly message: true };

function linkOf(line: JsonObjectLine): Link | undefined {
  const uuid = stringAt(line.value, 'uuid');
  if (uuid === undefined) return undefined;
  const type = stringAt(line.value, 'type') ?? 'untyped';
  const parent = stringAt(line.value, 'parentUuid') ?? stringAt(line.value, 'logicalParentUuid');
  return {
    ...line,
    uuid,
    parent,
    type,
    sidechain: line.value.isSidechain === true,
    message: MESSAGE_TYPES.has(type),
  };
}

function nodeOf(line: JsonObjectLine): Node | undefined {
  const link = linkOf(line);
  return link?.message === true ? (link as Node) : undefined;
}

/** The entry's fields the import did not map (and the message's), or undefined when none. */
function rawOf(
  value: Record<string, unknown>,
  conversationKey: string,
): Record<string, unknown> | undefined {
  const rest = without(value, MAPPED_FIELDS);
  if (rest.sessionId === conversationKey) delete rest.sessionId;
  const message = value.message;
  if (isRecord(message)) {
    const messageRest = without(message, MAPPED_MESSAGE_FIELDS);
    if (Object.keys(messageRest).length > 0) rest.message = messageRest;
  } else if (message !== undefined) {
    rest.message = message;
  }
  return Object.keys(rest).length === 0 ? undefined : rest;
}

function imagePart(block: Record<string, unknown>): Record<string, unknown> {
  const source = block.source;
  if (isRecord(source) && source.type === 'base64' && typeof source.data === 'string') {
    const mediaType =
      typeof source.media_type === 'string' ? source.media_type : 'application/octet-stream';
    return { type: 'input_image', image_url: `data:${mediaType};base64,${source.data}` };
  }
  if (isRecord(source) && source.type === 'url' && typeof source.url === 'string') {
    return { type: 'input_image', image_url: source.url };
  }
  return block;
}

/** A Claude content block of a user message or tool result as a Responses content part. */
function inputPart(block: unknown): Record<string, unknown> {
  if (typeof block === 'string') return { type: 'input_text', text: block };
  if (!isRecord(block)) return { type: 'unknown', value: block };
  if (block.type === 'text' && typeof block.text === 'string')
    return { type: 'input_text', text: block.text };
  if (block.type === 'image') return imagePart(block);
  return block.type === undefined ? { type: 'unknown', ...block } : block;
}

function toolOutput(content: unknown): string | Record<string, unknown>[] {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(inputPart);
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

interface Mapped {
  readonly items: Array<{ item: InputItem; isError?: boolean }>;
  /** Block fields the items could not hold, by block index. */
  readonly blockRaw: Record<string, unknown>[];
}

function mapUserContent(content: unknown): Mapped {
  const items: Mapped['items'] = [];
  const blockRaw: Record<string, unknown>[] = [];
  if (typeof content === 'string') {
    items.push({ item: { type: 'message', role: 'user', content } });
    return { items, blockRaw };
  }
  const blocks = Array.isArray(content) ? content : [];
  let parts: Record<string, unknown>[] = [];
  const flush = () => {
    if (parts.length > 0)
      items.push({ item: { type: 'message', role: 'user', content: parts as never } });
    parts = [];
  };
  for (const block of blocks) {
    if (isRecord(block) && block.type === 'tool_result' && typeof block.tool_use_id === 'string') {
      flush();
      const rest = without(block, ['type', 'tool_use_id', 'content', 'is_error']);
      if (Object.keys(rest).length > 0) blockRaw.push({ tool_use_id: block.tool_use_id, ...rest });
      items.push({
        item: {
          type: 'function_call_output',
          call_id: block.tool_use_id,
          output: toolOutput(block.content) as never,
        },
        isError: block.is_error === true,
      });
    } else {
      parts.push(inputPart(block));
    }
  }
  flush();
  return { items, blockRaw };
}

function mapAssistantContent(content: unknown): Mapped {
  const items: Mapped['items'] = [];
  const blockRaw: Record<string, unknown>[] = [];
  const blocks =
    typeof content === 'string'
      ? [{ type: 'text', text: content }]
      : Array.isArray(content)
        ? content
        : [];
  for (const block of blocks) {
    if (!isRecord(block)) {
      blockRaw.push({ block });
      continue;
    }
    if (block.type === 'text' && typeof block.text === 'string') {
      const rest = without(block, ['type', 'text']);
      if (Object.keys(rest).length > 0) blockRaw.push({ type: 'text', ...rest });
      items.push({ item: { type: 'message', role: 'assistant', content: block.text } });
    } else if (
      block.type === 'tool_use' &&
      typeof block.id === 'string' &&
      typeof block.name === 'string'
    ) {
      const rest = without(block, ['type', 'id', 'name', 'input']);
      if (Object.keys(rest).length > 0) blockRaw.push({ type: 'tool_use', id: block.id, ...rest });
      items.push({
        item: {
          type: 'function_call',
          call_id: block.id,
          name: block.name,
          arguments: JSON.stringify(block.input ?? {}),
        },
      });
    } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      const rest = without(block, ['type', 'thinking']);
      if (Object.keys(rest).length > 0) blockRaw.push({ type: 'thinking', ...rest });
      items.push({
        item: { type: 'reasoning', summary: [{ type: 'summary_text', text: block.thinking }] },
      });
    } else if (block.type === 'redacted_thinking') {
      blockRaw.push(block);
      items.push({ item: { type: 'reasoning', summary: [] } });
    } else if (typeof block.type === 'string' && block.type !== '') {
      // Server tools, citations blocks and kinds newer than this importer: kept as an item of
      // their own kind (core passes unknown item types through untouched).
      items.push({ item: block as InputItem });
    } else {
      blockRaw.push({ block });
    }
  }
  return { items, blockRaw };
}

function usageOf(usage: unknown): SourceModelCall['usage'] {
  if (!isRecord(usage)) return undefined;
  const input = countAt(usage, 'input_tokens');
  const output = countAt(usage, 'output_tokens');
  if (input === undefined || output === undefined) return undefined;
  const cacheRead = countAt(usage, 'cache_read_input_tokens') ?? 0;
  const cacheCreation = countAt(usage, 'cache_creation_input_tokens') ?? 0;
  // Anthropic counts cached input apart from input_tokens; Episodic's input_tokens is the whole input.
  const totalInput = input + cacheRead + cacheCreation;
  return {
    input_tokens: totalInput,
    output_tokens: output,
    total_tokens: totalInput + output,
    ...(cacheRead > 0 ? { input_cached_tokens: cacheRead } : {}),
    ...(cacheCreation > 0 ? { input_cache_creation_tokens: cacheCreation } : {}),
  };
}

/**
 * The uuids on the active path: from the thread's newest message back to the root, through every
 * link (progress, attachment and system entries sit between messages since Claude Code 2.x) and
 * through compactions (`logicalParentUuid`).
 */
function activePath(thread: readonly Link[], byUuid: ReadonlyMap<string, Link>): Set<string> {
  const path = new Set<string>();
  let current = thread.findLast((link) => link.message) ?? thread.at(-1);
  while (current !== undefined && !path.has(current.uuid)) {
    path.add(current.uuid);
    current = current.parent === undefined ? undefined : byUuid.get(current.parent);
  }
  return path;
}

/** The root of a sidechain link: up its parents while they are sidechain links too. */
function sidechainRoot(link: Link, byUuid: ReadonlyMap<string, Link>): string {
  let current = link;
  const seen = new Set<string>();
  while (current.parent !== undefined && !seen.has(current.uuid)) {
    seen.add(current.uuid);
    const parent = byUuid.get(current.parent);
    if (parent === undefined || !parent.sidechain) break;
    current = parent;
  }
  return current.uuid;
}

/** The nearest message up the chain from a link's parent (skipping non-message links). */
function messageParent(link: Link, byUuid: ReadonlyMap<string, Link>): string | undefined {
  const seen = new Set<string>();
  let current = link.parent === undefined ? undefined : byUuid.get(link.parent);
  while (current !== undefined && !current.message && !seen.has(current.uuid)) {
    seen.add(current.uuid);
    current = current.parent === undefined ? undefined : byUuid.get(current.parent);
  }
  return current?.uuid;
}

interface Thread {
  readonly key: string;
  /** For a sidechain: the session id of the conversation that started it. */
  readonly sidechainOf?: string;
  readonly lines: JsonObjectLine[];
  readonly links: Link[];
}

function mapThread(
  thread: Thread,
  byUuid: ReadonlyMap<string, Link>,
  title: string | undefined,
): SourceConversation {
  const onPath = activePath(thread.links, byUuid);
  const last = (thread.links.findLast((link) => link.message) ?? thread.links.at(-1)) as Link;
  const entries: SourceEntry[] = [];
  const calls = new Map<string, SourceModelCall>();
  // The last entry of each assistant message: where its usage (repeated on every entry) is final.
  const lastOfMessage = new Map<string, number>();
  for (const line of thread.lines) {
    const message = line.value.message;
    if (line.value.type === 'assistant' && isRecord(message) && typeof message.id === 'string')
      lastOfMessage.set(message.id, line.line);
  }
  let skipSummary: string | undefined;
  for (const [index, line] of thread.lines.entries()) {
    const node = nodeOf(line);
    const ts = stringAt(line.value, 'timestamp');
    const uuid = stringAt(line.value, 'uuid');
    const origin = { line: line.line, ...(uuid === undefined ? {} : { id: uuid }) };
    const timing = ts === undefined ? {} : { ts };
    if (node === undefined) {
      entries.push({
        kind: 'raw',
        reason: `${String(line.value.type ?? 'untyped')} entry`,
        entry: line.value,
        origin,
        ...timing,
        routine: true,
      });
      continue;
    }
    if (node.uuid === skipSummary) continue;
    if (!onPath.has(node.uuid)) {
      entries.push({
        kind: 'raw',
        reason: 'abandoned branch',
        entry: line.value,
        origin,
        ...timing,
      });
      continue;
    }
    const raw = rawOf(line.value, thread.key);
    const message = isRecord(line.value.message) ? line.value.message : {};
    if (node.type === 'system') {
      if (line.value.subtype !== 'compact_boundary') {
        entries.push({
          kind: 'raw',
          reason: `system ${String(line.value.subtype ?? 'entry')}`,
          entry: line.value,
          origin,
          ...timing,
          routine: true,
        });
        continue;
      }
      // The compact summary: the next message whose nearest message ancestor is this boundary.
      const summaryLine = thread.lines.slice(index + 1).find((candidate) => {
        const link = nodeOf(candidate);
        return link !== undefined && messageParent(link, byUuid) === node.uuid;
      });
      const summary =
        summaryLine !== undefined &&
        summaryLine.value.isCompactSummary === true &&
        isRecord(summaryLine.value.message)
          ? textOfContent(summaryLine.value.message.content)
          : undefined;
      const metadata = isRecord(line.value.compactMetadata) ? line.value.compactMetadata : {};
      const title = `conversation compacted${typeof metadata.trigger === 'string' ? ` (${metadata.trigger})` : ''}`;
      if (summary !== undefined && summaryLine !== undefined) {
        skipSummary = stringAt(summaryLine.value, 'uuid');
        const summaryRaw = rawOf(summaryLine.value, thread.key);
        entries.push({
          kind: 'boundary',
          payload: { reason: 'checkpoint', title, content: summary },
          origin,
          ...timing,
          raw: { ...(raw ?? {}), summary_entry: { uuid: skipSummary, ...(summaryRaw ?? {}) } },
        });
      } else {
        entries.push({
          kind: 'boundary',
          payload: { reason: 'segment', title },
          origin,
          ...timing,
          ...(raw === undefined ? {} : { raw }),
        });
      }
      continue;
    }
    if (node.type === 'user' && line.value.isCompactSummary === true) {
      // A compact summary without its boundary (older versions, or a resumed session's first
      // message): the checkpoint on its own.
      entries.push({
        kind: 'boundary',
        payload: {
          reason: 'checkpoint',
          title: 'conversation compacted',
          content: textOfContent(message.content),
        },
        origin,
        ...timing,
        ...(raw === undefined ? {} : { raw }),
      });
      continue;
    }
    const mapped =
      node.type === 'user' ? mapUserContent(message.content) : mapAssistantContent(message.content);
    const entryRaw = mapped.blockRaw.length > 0 ? { ...(raw ?? {}), blocks: mapped.blockRaw } : raw;
    if (mapped.items.length === 0) {
      entries.push({
        kind: 'raw',
        reason: `${node.type} entry without content`,
        entry: line.value,
        origin,
        ...timing,
      });
      continue;
    }
    let call: SourceModelCall | undefined;
    if (node.type === 'assistant') {
      const key = typeof message.id === 'string' ? message.id : node.uuid;
      call = calls.get(key) ?? { key };
      calls.set(key, call);
      if (typeof message.model === 'string') call.model = message.model;
      const usage = usageOf(message.usage);
      if (usage !== undefined) call.usage = usage;
      if (typeof message.stop_reason === 'string') call.stopReason = message.stop_reason;
    }
    mapped.items.forEach(({ item, isError }, position) => {
      entries.push({
        kind: 'item',
        item,
        source:
          node.type === 'assistant'
            ? 'model'
            : item.type === 'function_call_output'
              ? 'tool'
              : 'user',
        origin,
        ...timing,
        ...(position === 0 && entryRaw !== undefined ? { raw: entryRaw } : {}),
        ...(call === undefined ? {} : { call }),
        ...(item.type === 'message' && node.type === 'user' && line.value.isMeta !== true
          ? { userInput: true }
          : {}),
        ...(isError === true ? { isError: true } : {}),
      });
    });
    const messageId = typeof message.id === 'string' ? message.id : undefined;
    if (
      call?.usage !== undefined &&
      (messageId === undefined || lastOfMessage.get(messageId) === line.line)
    ) {
      entries.push({
        kind: 'usage',
        usage: {
          inputTokens: call.usage.input_tokens,
          outputTokens: call.usage.output_tokens,
          ...(call.usage.total_tokens === undefined
            ? {}
            : { totalTokens: call.usage.total_tokens }),
        },
        origin,
        ...timing,
      });
    }
  }
  const withSummaries = summariesAfterLeaves(thread, onPath, entries);
  const version = stringAt(last.value, 'version');
  const cwd = stringAt(last.value, 'cwd');
  const gitBranch = stringAt(last.value, 'gitBranch');
  const sessionId = stringAt(last.value, 'sessionId');
  const agentId = stringAt(last.value, 'agentId');
  return {
    format: 'claude-code',
    key: thread.key,
    ...(thread.sidechainOf === undefined ? {} : { parentKey: thread.sidechainOf }),
    ...(title === undefined ? {} : { title }),
    agent: { name: 'claude-code', ...(version === undefined ? {} : { version }) },
    model: { provider: 'anthropic' },
    ...(cwd === undefined ? {} : { runtime: { cwd } }),
    context: {
      ...(sessionId === undefined ? {} : { session_id: sessionId }),
      ...(thread.sidechainOf === undefined ? {} : { sidechain_of: thread.sidechainOf }),
      ...(agentId === undefined ? {} : { agent_id: agentId }),
      ...(cwd === undefined ? {} : { cwd }),
      ...(gitBranch === undefined || gitBranch === '' ? {} : { git_branch: gitBranch }),
      ...(version === undefined ? {} : { version }),
    },
    entries: withSummaries,
  };
}

/**
 * The `summary` entries of the thread whose leaf is on its active path, as checkpoints right
 * after their leaf: the conversation up to there, summarized. (The summary line itself stays raw
 * where it stands, usually the top of the file; placed after its leaf, a transcript that grows
 * still imports as a continuation of what was imported before.)
 */
function summariesAfterLeaves(
  thread: Thread,
  onPath: ReadonlySet<string>,
  entries: readonly SourceEntry[],
): SourceEntry[] {
  const byLeaf = new Map<string, SourceEntry[]>();
  for (const line of thread.lines) {
    const leaf = line.value.leafUuid;
    if (line.value.type !== 'summary' || typeof line.value.summary !== 'string') continue;
    if (typeof leaf !== 'string' || !onPath.has(leaf)) continue;
    const boundaries = byLeaf.get(leaf) ?? [];
    boundaries.push({
      kind: 'boundary',
      payload: { reason: 'checkpoint', title: 'summary', content: line.value.summary },
      origin: { line: line.line },
      raw: { leafUuid: leaf },
    });
    byLeaf.set(leaf, boundaries);
  }
  if (byLeaf.size === 0) return [...entries];
  const result: SourceEntry[] = [];
  entries.forEach((entry, index) => {
    result.push(entry);
    const id = entry.origin.id;
    if (id === undefined || entries[index + 1]?.origin.id === id) return;
    const boundaries = byLeaf.get(id);
    if (boundaries === undefined) return;
    for (const boundary of boundaries)
      result.push({
        ...boundary,
        ...(entry.ts === undefined ? {} : { ts: entry.ts }),
      } as SourceEntry);
    byLeaf.delete(id);
  });
  return result;
}

/**
 * Reads one Claude Code session file into conversations: the main thread (its active path as
 * messages, abandoned branches and entries without a model meaning kept as `import.raw`), and one
 * conversation per sidechain (sub-agent) thread, which names the session that started it
 * (`sidechain_of`) and its `agent_id`. Damaged lines go to `problems`.
 */
export function parseClaudeCode(
  text: string,
  problems: ImportProblem[],
  label?: string,
): SourceConversation[] {
  const lines = readJsonObjectLines(text, problems, label);
  const links = lines.map(linkOf);
  const byUuid = new Map<string, Link>();
  for (const link of links) if (link !== undefined) byUuid.set(link.uuid, link);
  const messages = links.filter((link): link is Link => link?.message === true);
  const mainMessages = messages.filter((link) => !link.sidechain);
  const sessionId =
    stringAt((mainMessages.at(-1) ?? messages.at(-1))?.value ?? {}, 'sessionId') ??
    messages.at(-1)?.uuid;
  if (sessionId === undefined) {
    if (lines.length > 0) {
      problems.push({
        ...(label === undefined ? {} : { source: label }),
        message: `holds no user, assistant or system entries (${lines.length} other line${lines.length === 1 ? '' : 's'}); nothing to import`,
      });
    }
    return [];
  }
  const main: Thread = { key: sessionId, lines: [], links: [] };
  const sidechains = new Map<string, Thread>();
  lines.forEach((line, index) => {
    const link = links[index];
    if (link === undefined || !link.sidechain) {
      main.lines.push(line);
      if (link !== undefined) main.links.push(link);
      return;
    }
    const root = sidechainRoot(link, byUuid);
    let thread = sidechains.get(root);
    if (thread === undefined) {
      thread = {
        key: `${sessionId}:sidechain:${root}`,
        sidechainOf: sessionId,
        lines: [],
        links: [],
      };
      sidechains.set(root, thread);
    }
    thread.lines.push(line);
    thread.links.push(link);
  });
  const titles = lines
    .filter((line) => line.value.type === 'summary' && typeof line.value.summary === 'string')
    .filter((line) => byUuid.has(String(line.value.leafUuid)))
    .map((line) => line.value.summary as string);
  for (const [root, thread] of sidechains) {
    if (thread.links.some((link) => link.message)) continue;
    // Sidechain links without a message (progress of a sub-agent): kept with the main thread.
    sidechains.delete(root);
    main.lines.push(...thread.lines);
    main.links.push(...thread.links);
    main.lines.sort((left, right) => left.line - right.line);
    main.links.sort((left, right) => left.line - right.line);
  }
  const conversations: SourceConversation[] = [];
  if (main.links.some((link) => link.message))
    conversations.push(mapThread(main, byUuid, titles.at(-1)));
  else if (main.lines.length > 0 && sidechains.size > 0) {
    // A sub-agent file: its other lines (snapshots, summaries) join the first sidechain thread.
    const first = sidechains.values().next().value as Thread;
    first.lines.unshift(...main.lines);
    first.links.unshift(...main.links);
  }
  for (const thread of sidechains.values())
    conversations.push(mapThread(thread, byUuid, undefined));
  return conversations;
}
