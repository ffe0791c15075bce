// Public exports of this area, listed by name.
export type { AssembledInput, AssembleOptions } from './assemble.js';
export { assemble } from './assemble.js';
export type { TokenCounter } from './estimate-tokens.js';
export { CHARS_PER_TOKEN, estimateTokens } from './estimate-tokens.js';
export type {
  AssemblyBudget,
  AssemblyDrop,
  AssemblyDropReason,
  AssemblyManifest,
  AssemblyManifestItem,
  AssemblyNote,
  AssemblyNoteKind,
  AssemblyStart,
} from './manifest.js';
export { explainEpisode } from './manifest.js';
export type {
  DanglingCallPolicy,
  NormalizeOptions,
  NormalizeResult,
  Normalizer,
  SourcedItem,
} from './normalize-items.js';
export { INTERRUPTED_CALL_OUTPUT, normalizeItems } from './normalize-items.js';
export type { AssemblyPlugin, PluginInput, PluginReturn } from './plugin.js';
export { renderBoundary, VISIBLE_BOUNDARY_REASONS } from './render-boundary.js';
export type { AssemblyStartAt } from './select-episodes.js';
export type { TruncatedOutput } from './truncate-tool-output.js';
export { DEFAULT_MAX_TOOL_OUTPUT_CHARS, truncateToolOutput } from './truncate-tool-output.js';
