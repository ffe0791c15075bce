export type { CliIo } from './run-cli.js';
export { runCli } from './run-cli.js';
