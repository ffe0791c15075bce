import type { RowModule } from '../lib/row-module.js';
import { cliStartModule } from './cli-start.js';
import { episodicLogModule } from './episodic-log.js';
import { ledgerGcModule } from './ledger-gc.js';
import { ledgerInsertModule } from './ledger-insert.js';
import { ledgerQueryModule } from './ledger-query.js';
import { mcpModule } from './mcp.js';
import { postgresModule } from './postgres.js';
import { postgresSessionsModule } from './postgres-sessions.js';
import { runAppendModule } from './run-append.js';
import { runReadModule } from './run-read.js';

/** Every row module, in QUALITY.md's table order. */
export const MODULES: readonly RowModule[] = [
  runAppendModule,
  runReadModule,
  episodicLogModule,
  ledgerInsertModule,
  ledgerQueryModule,
  ledgerGcModule,
  postgresModule,
  postgresSessionsModule,
  cliStartModule,
  mcpModule,
];
