// `@episodic/store-postgres/url`: recognizing and describing connection URLs without loading the
// driver, for tools that choose a store from a `--db` value (the CLI, the MCP server).
export { describeConnection, isPostgresUrl, schemaOfUrl } from './connection-url.js';
