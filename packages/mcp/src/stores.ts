// `@episodic/mcp/stores`: opens the stores under the Episodic home (Node only; no MCP SDK here).
export type {
  EpisodicLocation,
  EpisodicRunStoreKind,
  EpisodicStores,
  EpisodicStoresEnv,
  OpenEpisodicStoresOptions,
} from './stores/open-episodic-stores.js';
export { openEpisodicStores, resolveEpisodicLocation } from './stores/open-episodic-stores.js';
