// `@episodic/mcp/stores`: opens the stores under the Episodic home (Node only; no MCP SDK here).
export type {
  EpisodicLocation,
  EpisodicRunStoreKind,
  EpisodicStoresEnv,
  OpenEpisodicStoresOptions,
} from './stores/episodic-location.js';
export { resolveEpisodicLocation } from './stores/episodic-location.js';
export type { EpisodicStores } from './stores/open-episodic-stores.js';
export { openEpisodicStores } from './stores/open-episodic-stores.js';
