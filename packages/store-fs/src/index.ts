export type { EpisodicHomeOptions } from './episodic-home.js';
export { resolveEpisodicHome } from './episodic-home.js';
export type { FsIo } from './fs-io.js';
export { nodeFsIo } from './fs-io.js';
export type { FsStore, FsStoreOptions } from './fs-store.js';
export { createFsRunStore, createFsSessionStore, createFsStore } from './fs-store.js';
export type { CountFsStoreFilesOptions, FsStoreContents } from './fs-store-contents.js';
export { countFsStoreFiles } from './fs-store-contents.js';
export { tailRunFileAt } from './run-file-reader.js';
